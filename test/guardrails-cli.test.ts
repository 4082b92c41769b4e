/**
 * A key's own secret guardrail mode from the command line (docs/guardrails.md "Modes"):
 * `keys create --guardrails`, `keys update --guardrails`, shown by `keys list --json`; a mode
 * that is not one of block, redact, log, off is bad usage.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

assertBuilt();
const dir = tempDir();
const db = join(dir, "gateway.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("sets, changes and shows a key's mode; refuses an unknown one", async () => {
  const created = await gateway(["keys", "create", "--name", "agent", "--guardrails", "redact", "--json", "--db", db]);
  expect(created.exitCode, created.stderr).toBe(0);
  expect(JSON.parse(created.stdout).guardrails).toBe("redact");
  const updated = await gateway(["keys", "update", "agent", "--guardrails", "block", "--db", db]);
  expect(updated.exitCode, updated.stderr).toBe(0);
  const listed = JSON.parse((await gateway(["keys", "list", "--json", "--db", db])).stdout);
  expect(listed.find((k: any) => k.name === "agent").guardrails).toBe("block");
  const bad = await gateway(["keys", "create", "--name", "b", "--guardrails", "maybe", "--db", db]);
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toMatch(/block, redact, log, off/);
});
