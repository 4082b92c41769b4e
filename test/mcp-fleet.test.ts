/**
 * /mcp across a fleet (contract §17 with §7, docs/mcp.md "Sessions"): two `gateway serve`
 * processes on one PostgreSQL and one Redis, behind one address that sends each request to the
 * next process. A session opened on one is served by the other; a grant changed from the CLI
 * reaches both within 5 s; a revoked key's session is refused by both within 1 s. Real child
 * processes, a real MCP server written with the SDK.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeMcp, type FakeMcp } from "./helpers/fake-mcp.js";
import { connectMcp, rawSession } from "./helpers/mcp-client.js";
import { REDIS_URL, useRedis } from "./helpers/redis.js";
import { startRoundRobin, type RoundRobin } from "./helpers/round-robin.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

type Proc = Awaited<ReturnType<typeof serve>>;

const redis = useRedis();
let fake: FakeMcp;
let db: TestDatabase;
let dir: string;
let procs: Proc[] = [];
let front: RoundRobin;
const cli = (...args: string[]) => gateway([...args, "--json"], { cwd: dir, env: { GATEWAY_DB: db.url } });
const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeMcp();
  db = await createTestDatabase();
  dir = tempDir();
  writeFileSync(
    join(dir, "gateway.config.yaml"),
    [`mcp: { servers: { fs: { url: "${fake.url}" } } }`, `redis: { url: "${REDIS_URL}", prefix: "${redis.prefix}" }`].join("\n"),
  );
  procs = await Promise.all([0, 1].map(() => serve(["--config", join(dir, "gateway.config.yaml")], { cwd: dir, env: { GATEWAY_DB: db.url } })));
  front = await startRoundRobin(procs.map((p) => p.url));
}, 60_000);

afterAll(async () => {
  await front?.close();
  for (const p of procs) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.proc));
  await fake?.close();
  await db?.drop();
});

test("a session opened on one process is served by the other, tool calls included", async () => {
  const key = (await cli("keys", "create", "--name", "fleet-agent", "--mcp", "fs:echo,fs:add")).json.key as string;
  const before = [...front.served];
  const client = await connectMcp(front.url, key);
  for (let i = 0; i < 3; i++) {
    expect(names((await client.listTools()).tools)).toEqual(["fs__add", "fs__echo"]);
    expect((await client.callTool({ name: "fs__add", arguments: { a: i, b: 1 } })).content).toEqual([{ type: "text", text: String(i + 1) }]);
  }
  await client.close();
  expect(front.served.map((n, i) => n - before[i]!).every((n) => n >= 3)).toBe(true);
}, 120_000);

test("a grant changed from the CLI reaches both processes within 5 s; a revoked key's session is refused by both within 1 s", async () => {
  const key = (await cli("keys", "create", "--name", "regranted-2", "--mcp", "fs:echo")).json.key as string;
  const sessions = await Promise.all(procs.map((p) => rawSession(p.url, key)));
  await cli("keys", "update", "regranted-2", "--mcp", "fs:add");
  const started = Date.now();
  const seen = async () =>
    (await Promise.all(sessions.map(async (s) => names((await s.call("tools/list")).body.result.tools)))).every((n) => n.join() === "fs__add");
  while (!(await seen()) && Date.now() - started < 8_000) await new Promise((r) => setTimeout(r, 50));
  expect(Date.now() - started).toBeLessThan(5_000);
  await cli("keys", "revoke", "regranted-2");
  const revoked = Date.now();
  const refused = async () =>
    (await Promise.all(sessions.map((s) => s.call("tools/call", { name: "fs__add", arguments: { a: 1, b: 1 } })))).every((r) => r.status === 401);
  while (!(await refused()) && Date.now() - revoked < 3_000) await new Promise((r) => setTimeout(r, 20));
  expect(Date.now() - revoked).toBeLessThan(1_000);
}, 120_000);
