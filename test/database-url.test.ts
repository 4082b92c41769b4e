/**
 * A `database` that is a URL is never taken for a file path: once, `<url>.secret` and a SQLite
 * file were written under a directory literally named `postgres:` in the working directory.
 * PostgreSQL without GATEWAY_SECRET, and any other scheme, are refused in one line and leave
 * nothing behind.
 */
import { existsSync, readdirSync } from "node:fs";
import { beforeAll, expect, test } from "vitest";
import { loadSecret } from "../src/access/byok.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

const PG = "postgres://postgres@127.0.0.1:5432/gwt_never_created";

beforeAll(() => assertBuilt());

test("serve --db postgres://... without GATEWAY_SECRET fails in one line and creates no postgres: directory", async () => {
  const dir = tempDir();
  const r = await gateway(["serve", "--port", "0", "--db", PG], { cwd: dir, env: { GATEWAY_SECRET: "" } });
  expect(r.exitCode).toBe(2);
  expect(r.stderr.trim().split("\n")).toEqual([
    "error: GATEWAY_SECRET must be set (64 hex characters, the same on every process) when the database is PostgreSQL",
  ]);
  expect(readdirSync(dir)).toEqual([]);
});

test("another scheme is refused as a SQLite path, in one line naming only the scheme", async () => {
  const dir = tempDir();
  for (const args of [
    ["keys", "list"],
    ["serve", "--port", "0"],
  ]) {
    const r = await gateway([...args, "--db", "mysql://root:hunter2-password@db.example/gw"], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "error: the database is a mysql:// URL: only postgres:// and postgresql:// URLs are supported, any other database is a SQLite file path",
    ]);
    expect(readdirSync(dir)).toEqual([]);
  }
});

test("loadSecret refuses a URL instead of writing <url>.secret", () => {
  expect(() => loadSecret(PG, {})).toThrow("GATEWAY_SECRET must be set (64 hex characters, the same on every process) when the database is a URL");
  expect(existsSync("postgres:")).toBe(false);
  // With the secret given, a URL needs no file.
  expect(loadSecret(PG, { GATEWAY_SECRET: "s" })).toHaveLength(32);
});
