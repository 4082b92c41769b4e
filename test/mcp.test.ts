/**
 * The gateway's /mcp (contract §17, docs/mcp.md): a real gateway on loopback in front of two real
 * MCP servers written with the SDK (helpers/fake-mcp.ts), reached with the SDK's own client.
 * Grants decide what is listed and called; a call is rate limited, held, charged, on the ledger
 * and in the metrics; the answers never carry a server's URL or credentials.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { openStore } from "../src/store/open.js";
import { startFakeMcp, type FakeMcp } from "./helpers/fake-mcp.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { connectMcp, rawSession } from "./helpers/mcp-client.js";
import { rows } from "./helpers/rows.js";

const TOKEN = "ghp_upstreamSecretToken0000000000000000";
let gh: FakeMcp;
let fs: FakeMcp;
let gw: TestGateway;

beforeEach(async () => {
  [gh, fs] = await Promise.all([startFakeMcp(), startFakeMcp()]);
  gw = await startGateway({
    mcp: {
      servers: {
        github: { url: gh.url, headers: { Authorization: `Bearer ${TOKEN}` }, pricePerCall: "0.001", timeoutMs: 5_000 },
        fs: { url: fs.url, tools: ["echo", "add", "slow", "fail", "die"] },
      },
    },
  });
});
afterEach(async () => {
  await gw.close();
  await Promise.all([gh.close(), fs.close()]);
});

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

describe("MCP grants", () => {
  test("tools/list shows exactly the intersection of the key's grant and the server's tools, prefixed on /mcp, plain on /mcp/<server>", async () => {
    const key = await gw.createKey({ mcp: ["github:search_*", "fs:*"] });
    const all = await connectMcp(gw.url, key);
    expect(names((await all.listTools()).tools)).toEqual(["fs__add", "fs__die", "fs__echo", "fs__fail", "fs__slow", "github__search_code"]);
    const one = await connectMcp(gw.url, key, "/mcp/github");
    expect(names((await one.listTools()).tools)).toEqual(["search_code"]);
    await Promise.all([all.close(), one.close()]);
    // The upstream got the configured header; the client never sent it.
    expect(gh.headers.some((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  test("a key without a grant lists no tool, and its forced call is refused before any upstream call, naming only the tool (LiteLLM #32563, #29936)", async () => {
    const key = await gw.createKey();
    const s = await rawSession(gw.url, key);
    expect((await s.call("tools/list")).body.result).toEqual({ tools: [] });
    const forced = await s.call("tools/call", { name: "github__delete_repo", arguments: {} });
    expect(forced.status).toBe(200);
    expect(forced.body.result.isError).toBe(true);
    const text = JSON.stringify(forced.body);
    expect(text).toContain("github__delete_repo");
    expect(text).toMatch(/no grant/);
    for (const leak of [TOKEN, gh.url, fs.url, "fs__", "127.0.0.1"]) expect(text).not.toContain(leak);
    expect(gh.calls).toEqual([]);
  });

  test("a tool-level grant never grants its whole server (LiteLLM #33397)", async () => {
    await gw.addCredits("1");
    const key = await gw.createKey({ mcp: ["github:search_*"] });
    const s = await rawSession(gw.url, key);
    const denied = await s.call("tools/call", { name: "github__delete_repo", arguments: {} });
    expect(denied.body.result.isError).toBe(true);
    const ok = await s.call("tools/call", { name: "github__search_code", arguments: { q: "x" } });
    expect(ok.body.result).toEqual({ content: [{ type: "text", text: "found x" }] });
    expect(gh.calls.map((c) => c.name)).toEqual(["search_code"]);
  });

  test("grant changes made by another connection are seen within 1 s by an open session, adding and removing (LiteLLM #35662)", async () => {
    const key = await gw.createKey({ name: "granted-later" });
    const client = await connectMcp(gw.url, key);
    expect((await client.listTools()).tools).toEqual([]);
    const cli = await openStore(gw.db);
    try {
      const id = (await cli.findKey("granted-later"))!.id;
      await cli.updateKey(id, { mcp: ["fs:echo"] }, Date.now());
      const started = Date.now();
      while ((await client.listTools()).tools.length === 0 && Date.now() - started < 2_000) await new Promise((r) => setTimeout(r, 20));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(names((await client.listTools()).tools)).toEqual(["fs__echo"]);
      // The account narrows its keys to fs's add only: echo goes, though the key's grant names it.
      await cli.addMcpGrant({ account: "default", server: "fs", tools: "add", createdAt: Date.now() });
      const narrowed = Date.now();
      while ((await client.listTools()).tools.length > 0 && Date.now() - narrowed < 2_000) await new Promise((r) => setTimeout(r, 20));
      expect(Date.now() - narrowed).toBeLessThan(1_000);
    } finally {
      await cli.close();
      await client.close();
    }
  });
});

describe("MCP calls are accounted", () => {
  test("a call is charged its pricePerCall, with a ledger row (endpoint mcp, server, tool, bytes) and metrics; arguments are not stored", async () => {
    await gw.addCredits("1");
    const key = await gw.createKey({ mcp: ["github:*"] });
    const client = await connectMcp(gw.url, key);
    const r = await client.callTool({ name: "github__search_code", arguments: { q: "needle-in-args" } });
    expect(r.content).toEqual([{ type: "text", text: "found needle-in-args" }]);
    await client.close();
    const [row] = await rows<Record<string, unknown>>(gw.db, "SELECT endpoint, model, provider, status, cost, bytes_in, bytes_out FROM ledger");
    expect({ ...row, cost: Number(row!.cost) }).toMatchObject({
      endpoint: "mcp",
      model: "github/search_code",
      provider: "github",
      status: "ok",
      cost: 1_000_000,
    });
    expect(Number(row!.bytes_in)).toBeGreaterThan(20);
    expect(Number(row!.bytes_out)).toBeGreaterThan(20);
    expect(JSON.stringify(await rows(gw.db, "SELECT * FROM ledger"))).not.toContain("needle-in-args");
    expect(await gw.store.balance("default")).toBe(1_000_000_000n - 1_000_000n);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_mcp_calls_total\{server="github",tool="search_code",outcome="ok"\} 1/);
    expect(metrics).toMatch(/gateway_mcp_call_duration_seconds_count\{server="github"\} 1/);
  });

  test("a priced call the balance cannot cover is HTTP 402, and the server is not called", async () => {
    const key = await gw.createKey({ mcp: ["github:*"] });
    const s = await rawSession(gw.url, key);
    const res = await s.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "github__search_code", arguments: { q: "x" } } });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("insufficient_credits");
    expect(gh.calls).toEqual([]);
  });

  test("the key's rate limit counts tool calls (429), not listing", async () => {
    const key = await gw.createKey({ mcp: ["fs:*"], rpm: 2 });
    const s = await rawSession(gw.url, key);
    for (let i = 0; i < 3; i++) expect((await s.call("tools/list")).status).toBe(200);
    expect((await s.call("tools/call", { name: "fs__echo", arguments: { text: "a" } })).status).toBe(200);
    expect((await s.call("tools/call", { name: "fs__echo", arguments: { text: "b" } })).status).toBe(200);
    const third = await s.call("tools/call", { name: "fs__echo", arguments: { text: "c" } });
    expect(third.status).toBe(429);
    expect(fs.calls.length).toBe(2);
  });
});
