/**
 * The MCP gateway from the command line (docs/mcp.md, docs/cli.md): `mcp add` keeps a server's
 * headers encrypted (the database file never holds the token; the audit log names only the
 * header), `mcp list|tools` connect to the servers, grants are added and revoked per account, a
 * key gets and loses its grant with `keys create|update --mcp/--no-mcp`, a running `serve`
 * calls a stdio server of the config and an added HTTP one, `usage --by tool` shows the calls, and
 * `doctor` checks each server. The built CLI as child processes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeMcp, type FakeMcp } from "./helpers/fake-mcp.js";
import { connectMcp } from "./helpers/mcp-client.js";

const TOKEN = "mcp-cli-secret-token-0123456789abcdef";
let dir: string;
let db: string;
let fake: FakeMcp;
const config = () => join(dir, "gateway.config.yaml");
const run = (...args: string[]) => gateway(["--db", db, "--config", config(), ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });

beforeAll(async () => {
  assertBuilt();
  dir = tempDir();
  db = join(dir, "g.db");
  fake = await startFakeMcp();
  const stdio = join(process.cwd(), "test/fixtures/fake-mcp-stdio.mjs");
  writeFileSync(config(), `mcp:\n  servers:\n    local:\n      command: [node, "${stdio}"]\n      env: { LOCAL_FLAG: "on" }\n`);
});
afterAll(async () => {
  await fake.close();
});

describe("gateway mcp", () => {
  test("add keeps headers encrypted; list and tools connect; remove and a typo get a did-you-mean", async () => {
    const added = await run("mcp", "add", "github", "--url", fake.url, "--header", `Authorization: Bearer ${TOKEN}`, "--price", "0.002", "--json");
    expect(added.exitCode).toBe(0);
    expect(added.json).toMatchObject({ name: "github", transport: "http", header_names: ["Authorization"], price_per_call: "0.002" });
    expect(added.stdout).not.toContain(TOKEN);
    expect(readFileSync(db).includes(Buffer.from(TOKEN))).toBe(false);
    const list = await run("mcp", "list", "--json");
    expect(list.json).toEqual([
      { name: "github", transport: "http", origin: "store", status: "ok", tools: 7, last_error: null },
      { name: "local", transport: "stdio", origin: "config", status: "ok", tools: 2, last_error: null },
    ]);
    expect(fake.headers.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
    const tools = await run("mcp", "tools", "--server", "local", "--json");
    expect(tools.json).toEqual([
      { server: "local", name: "echo", description: "Echoes text" },
      { server: "local", name: "env_has", description: "Whether a variable is set" },
    ]);
    const typo = await run("mcp", "tools", "--server", "githb");
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain("did you mean 'github'");
    const audit = await run("audit", "--json");
    expect(JSON.stringify(audit.json)).not.toContain(TOKEN);
    expect(audit.json.map((r: { action: string }) => r.action)).toContain("mcp.server.add");
    expect((await run("mcp", "remove", "local")).exitCode).toBe(2); // the config's: removed there
  }, 120_000);

  test("grants: per account, audited, and a key's own with --mcp / --no-mcp", async () => {
    expect((await run("mcp", "grant", "gitub:search_*")).stderr).toContain("did you mean 'github'");
    expect((await run("mcp", "grant", "github:search_*", "--json")).json).toMatchObject({
      account: "default",
      server: "github",
      tools: "search_*",
      added: true,
    });
    expect((await run("mcp", "grants", "--json")).json).toEqual([expect.objectContaining({ account: "default", server: "github", tools: "search_*" })]);
    const key = await run("keys", "create", "--name", "agent", "--mcp", "github:*,local:echo", "--json");
    expect(key.json.mcp).toEqual(["github:*", "local:echo"]);
    expect((await run("keys", "update", "agent", "--mcp", "local:*", "--json")).json.mcp).toEqual(["local:*"]);
    expect((await run("keys", "update", "agent", "--no-mcp", "--json")).json.mcp).toBeNull();
    const bad = await run("keys", "update", "agent", "--mcp", "GitHub");
    expect(bad.exitCode).toBe(2);
    expect((await run("mcp", "revoke", "github:search_*", "--json")).json).toMatchObject({ revoked: true });
    expect((await run("mcp", "revoke", "github:search_*")).exitCode).toBe(2);
  }, 120_000);

  test("a running serve calls the config's stdio server and the added HTTP one; usage --by tool; doctor checks each", async () => {
    const key = (await run("keys", "create", "--name", "caller", "--mcp", "local:*,github:add", "--json")).json.key as string;
    await run("credits", "add", "1");
    const s = await serve(["--db", db, "--config", config()], { cwd: dir });
    try {
      const client = await connectMcp(s.url, key);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["github__add", "local__echo", "local__env_has"]);
      expect((await client.callTool({ name: "local__env_has", arguments: { name: "LOCAL_FLAG" } })).content).toEqual([{ type: "text", text: "set" }]);
      expect((await client.callTool({ name: "github__add", arguments: { a: 1, b: 2 } })).content).toEqual([{ type: "text", text: "3" }]);
      await client.close();
    } finally {
      s.proc.kill("SIGTERM");
      await s.proc;
    }
    const usage = await run("usage", "--by", "tool", "--json");
    expect(usage.json).toEqual([
      { group: "github/add", requests: 1, prompt_tokens: 0, completion_tokens: 0, cost: "0.002" },
      { group: "local/env_has", requests: 1, prompt_tokens: 0, completion_tokens: 0, cost: "0" },
    ]);
    const doctor = await run("doctor", "--json");
    const mcp = (doctor.json.findings as Array<{ check: string; status: string; message: string }>).filter((f) => f.check.startsWith("mcp "));
    expect(mcp).toEqual([
      { check: "mcp github", status: "ok", message: expect.stringMatching(/^reachable, initialize answered, 7 tools/) },
      { check: "mcp local", status: "ok", message: expect.stringMatching(/^reachable, initialize answered, 2 tools/) },
    ]);
  }, 120_000);
});
