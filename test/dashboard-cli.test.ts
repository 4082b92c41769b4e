/** `gateway users add|reset|list|remove` as a script drives them (docs/cli.md, docs/dashboard.md): --json, exit codes 0/1/2. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

beforeAll(assertBuilt);

describe("gateway users", () => {
  test("add prints a one-time link; list, reset and remove; failures exit 1, bad usage 2", async () => {
    const d = tempDir();
    const g = (...args: string[]) => gateway(["--db", join(d, "gateway.db"), ...args], { cwd: d });

    const add = await g("--json", "users", "add", "Ops@Example.com", "--account", "acme", "--create", "--admin");
    expect(add.exitCode).toBe(0);
    expect(add.json).toMatchObject({ email: "ops@example.com", account: "acme", admin: true });
    expect(add.json.link).toMatch(/^http:\/\/127\.0\.0\.1:8787\/dashboard\/#\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(add.json.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);

    const human = await g("users", "add", "dev@example.com", "--account", "acme");
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^http:\/\/127\.0\.0\.1:8787\/dashboard\/#\/set-password\?token=/);

    expect((await g("users", "add", "dev@example.com", "--account", "acme")).exitCode).toBe(1);
    const bad = await g("users", "add", "not-an-email", "--account", "acme");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect((await g("users", "add", "x@example.com", "--account", "bad account")).exitCode).toBe(2);
    expect((await g("users", "add")).exitCode).toBe(2);

    const list = await g("--json", "users", "list");
    expect(list.json).toEqual([
      { email: "dev@example.com", account: "acme", admin: false, password_set: false, vouched_by: null, created_at: expect.any(String) },
      { email: "ops@example.com", account: "acme", admin: true, password_set: false, vouched_by: null, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(list.json)).not.toContain("token");

    const reset = await g("--json", "users", "reset", "dev@example.com");
    expect(reset.exitCode).toBe(0);
    expect(reset.json.link).not.toBe(human.stdout.split("\n")[0]);
    expect((await g("users", "reset", "nobody@example.com")).exitCode).toBe(1);

    expect((await g("--json", "users", "remove", "dev@example.com")).json).toEqual({ email: "dev@example.com", removed: true });
    const again = await g("users", "remove", "dev@example.com");
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/no dashboard user 'dev@example.com'/);
    expect((await g("--json", "users", "list")).json.map((u: any) => u.email)).toEqual(["ops@example.com"]);
  });

  test("links point at dashboard.url when the dashboard sits behind a public address", async () => {
    const d = tempDir();
    writeFileSync(join(d, "gateway.config.yaml"), `database: ${join(d, "gateway.db")}\ndashboard:\n  url: https://gateway.example.com\n`);
    const add = await gateway(["--json", "users", "add", "a@example.com"], { cwd: d });
    expect(add.exitCode).toBe(0);
    expect(add.json.link).toMatch(/^https:\/\/gateway\.example\.com\/dashboard\/#\/set-password\?token=/);
    expect(add.json.account).toBe("default");
  });
});
