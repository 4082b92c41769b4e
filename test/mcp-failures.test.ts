/**
 * What goes wrong around /mcp (contract §17 "Failures", docs/mcp.md): a slow server times out and
 * a dying one fails its call with an error result naming the server while the session lives on;
 * tools/list with a server down lists the others, and /v1/health/mcp says which is down; the
 * server comes back and is used again; a tool list that changes is seen; progress passes
 * through; a client that hangs up cancels the upstream call; Origin of another site, a revoked
 * key's open session and another key's session are refused.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { openStore } from "../src/store/open.js";
import { startFakeMcp, type FakeMcp } from "./helpers/fake-mcp.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { connectMcp, rawSession } from "./helpers/mcp-client.js";

let a: FakeMcp;
let b: FakeMcp;
let gw: TestGateway;

beforeEach(async () => {
  [a, b] = await Promise.all([startFakeMcp(), startFakeMcp()]);
  gw = await startGateway({ mcp: { servers: { a: { url: a.url, timeoutMs: 300 }, b: { url: b.url } }, toolsTtlMs: 100 } });
});
afterEach(async () => {
  await gw.close();
  await Promise.all([a.close(), b.close()]);
});

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();
const health = async () => (await (await fetch(`${gw.url}/v1/health/mcp`)).json()) as { status: string; servers: Array<Record<string, unknown>> };

describe("MCP failures", () => {
  test("a call that times out is an error result naming the server; the session goes on", async () => {
    const key = await gw.createKey({ mcp: ["a:*"] });
    const client = await connectMcp(gw.url, key);
    const slow = await client.callTool({ name: "a__slow", arguments: { ms: 2_000 } });
    expect(slow.isError).toBe(true);
    expect(JSON.stringify(slow.content)).toContain("'a' timed out after 300 ms");
    expect((await client.callTool({ name: "a__echo", arguments: { text: "still here" } })).content).toEqual([{ type: "text", text: "still here" }]);
    await client.close();
  });

  test("a server that dies mid-call fails that call only; listing shows the other server; health says which is down; it comes back", async () => {
    const key = await gw.createKey({ mcp: ["a:*", "b:echo"] });
    const client = await connectMcp(gw.url, key);
    const died = await client.callTool({ name: "a__die", arguments: {} });
    expect(died.isError).toBe(true);
    expect(JSON.stringify(died.content)).toMatch(/The MCP server 'a' /);
    await a.kill();
    expect(names((await client.listTools()).tools)).toEqual(["b__echo"]);
    const h = await health();
    expect(h.status).toBe("degraded");
    expect(h.servers.find((s) => s.name === "a")).toMatchObject({ status: "down", transport: "http" });
    expect(h.servers.find((s) => s.name === "b")).toMatchObject({ status: "ok", tools: 7 });
    expect(JSON.stringify(h)).not.toContain(a.url);
    await a.restart();
    await new Promise((r) => setTimeout(r, 600)); // past the pause after a failed connection
    expect((await client.callTool({ name: "a__add", arguments: { a: 2, b: 3 } })).content).toEqual([{ type: "text", text: "5" }]);
    await client.close();
  });

  test("a tool added upstream is listed (notifications/tools/list_changed, or the list's lifetime)", async () => {
    const key = await gw.createKey({ mcp: ["b:*"] });
    const client = await connectMcp(gw.url, key, "/mcp/b");
    expect(names((await client.listTools()).tools)).not.toContain("fresh");
    b.addTool("fresh");
    const started = Date.now();
    while (!names((await client.listTools()).tools).includes("fresh") && Date.now() - started < 3_000) await new Promise((r) => setTimeout(r, 50));
    expect(names((await client.listTools()).tools)).toContain("fresh");
    await client.close();
  });

  test("progress passes through, and a client that hangs up cancels the upstream call", async () => {
    const key = await gw.createKey({ mcp: ["b:*"] });
    const client = await connectMcp(gw.url, key);
    const seen: number[] = [];
    const r = await client.callTool({ name: "b__slow", arguments: { ms: 200 } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
    expect(r.content).toEqual([{ type: "text", text: "slept 200" }]);
    expect(seen).toEqual([1, 2]);
    const s = await rawSession(gw.url, key);
    const abort = new AbortController();
    const call = s.post({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "b__slow", arguments: { ms: 1_000 } } }, {}).catch(() => undefined);
    void call;
    const gone = fetch(`${gw.url}/mcp`, {
      method: "POST",
      signal: abort.signal,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json", "mcp-session-id": s.sessionId! },
      body: JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "b__slow", arguments: { ms: 1_000 } } }),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 150));
    abort.abort();
    await gone;
    await expect.poll(() => b.cancelled, { timeout: 3_000 }).toBeGreaterThanOrEqual(1);
    await client.close();
  });
});

describe("MCP sessions and origins", () => {
  test("Origin of another site is refused; the gateway's own is not", async () => {
    const key = await gw.createKey({ mcp: ["b:*"] });
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const post = (origin: string) =>
      fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", origin },
        body: JSON.stringify(init),
      });
    const evil = await post("http://evil.example");
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: { code: string } }).error.code).toBe("origin_mismatch");
    expect((await post(new URL(gw.url).origin)).status).toBe(200);
  });

  test("a revoked key's open session is refused on its next call; another key cannot use a session", async () => {
    const key = await gw.createKey({ name: "mcp-revoked", mcp: ["b:*"] });
    const s = await rawSession(gw.url, key);
    expect((await s.call("tools/call", { name: "b__echo", arguments: { text: "1" } })).status).toBe(200);
    const other = await gw.createKey({ mcp: ["b:*"] });
    const stolen = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${other}`, "content-type": "application/json", accept: "application/json", "mcp-session-id": s.sessionId! },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stolen.status).toBe(404);
    const cli = await openStore(gw.db);
    await cli.revokeKey((await cli.findKey("mcp-revoked"))!.id, Date.now());
    await cli.close();
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 2_000) status = (await s.call("tools/call", { name: "b__echo", arguments: { text: "2" } })).status;
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test("GET and DELETE are 405 with Allow: POST; a request without a session is 400; an unknown server is 404", async () => {
    const key = await gw.createKey({ mcp: ["b:*"] });
    const auth = { authorization: `Bearer ${key}` };
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${gw.url}/mcp`, { method, headers: auth });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const bare = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bare.status).toBe(400);
    expect((await fetch(`${gw.url}/mcp/nope`, { method: "POST", headers: auth, body: "{}" })).status).toBe(404);
  });
});
