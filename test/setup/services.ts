/**
 * Global set-up: a run id for per-run databases and Redis prefixes, a check that PostgreSQL and
 * Redis answer (one line each when not, failing the run: these tests are never skipped), and at
 * the end the removal of anything the run left behind.
 */
import { randomBytes } from "node:crypto";
import { createConnection } from "node:net";
import type { TestProject } from "vitest/node";
import { checkPostgres, dropRunDatabases, REDIS_MISSING, REDIS_URL } from "../helpers/services.js";

declare module "vitest" {
  export interface ProvidedContext {
    runId: string;
  }
}

function checkRedis(): Promise<void> {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const fail = () => (socket.destroy(), reject(new Error(REDIS_MISSING)));
    socket.setTimeout(3_000, fail);
    socket.once("error", fail);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => (socket.end(), String(d).startsWith("+PONG") ? resolve() : fail()));
  });
}

export default async function setup(project: TestProject) {
  const runId = randomBytes(4).toString("hex");
  project.provide("runId", runId);
  await checkPostgres();
  await checkRedis();
  return async () => {
    await dropRunDatabases(runId);
  };
}
