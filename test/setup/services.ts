/**
 * Global set-up: a run id for per-run databases and Redis prefixes, a check that PostgreSQL and
 * Redis answer (one line each when not, failing the run: these tests are never skipped), and at
 * the end the removal of anything the run left behind.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { requireRedis } from "../helpers/redis.js";
import { checkPostgres, dropRunDatabases } from "../helpers/services.js";

declare module "vitest" {
  export interface ProvidedContext {
    runId: string;
  }
}

export default async function setup(project: TestProject) {
  const runId = randomBytes(4).toString("hex");
  project.provide("runId", runId);
  // Temporary folders of the whole run (helpers/cli.ts tempDir), removed with everything else at the end.
  const planted = process.env.GATEWAY_TEST_TMP;
  const tmp = planted || (process.env.GATEWAY_TEST_TMP = mkdtempSync(join(tmpdir(), "gw-run-")));
  await checkPostgres();
  (await requireRedis()).disconnect();
  return async () => {
    await dropRunDatabases(runId);
    if (!planted) rmSync(tmp, { recursive: true, force: true });
  };
}
