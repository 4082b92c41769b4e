/**
 * The dashboard's MCP page API (docs/mcp.md, docs/dashboard.md): an owner sees the servers and
 * their status, the account's grants and what each key may call (the same resolution as /mcp);
 * adds and removes account grants (audited), which /mcp then honours; a member may not. Real
 * gateway on loopback, a real SDK MCP server.
 */
import { afterEach, beforeEach, expect, test } from "vitest";
import { addUser } from "../src/operations/dashboard-users.js";
import { call, cookieOf, PASSWORD, SETUP, signUp, tokenOf } from "./helpers/dashboard.js";
import { startFakeMcp, type FakeMcp } from "./helpers/fake-mcp.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { connectMcp } from "./helpers/mcp-client.js";

let fake: FakeMcp;
let gw: TestGateway;

beforeEach(async () => {
  fake = await startFakeMcp();
  gw = await startGateway({ mcp: { servers: { tools: { url: fake.url } } } });
});
afterEach(async () => {
  await gw.close();
  await fake.close();
});

test("an owner sees servers, grants and each key's tools, and narrows the account's grants; /mcp follows; a member is refused", async () => {
  const { cookie } = await signUp(gw, "owner@example.com", "acme");
  const key = await gw.createKey({ account: "acme", name: "agent", mcp: ["tools:echo", "tools:add"] });
  const view = await call(gw, "GET", "/dashboard/api/mcp?account=acme", { cookie });
  expect(view.status).toBe(200);
  expect(view.json.servers).toEqual([{ name: "tools", transport: "http", status: "ok", last_error: null }]);
  expect(view.json.keys).toEqual([{ id: expect.any(String), name: "agent", grant: ["tools:echo", "tools:add"], tools: ["tools__echo", "tools__add"] }]);
  expect(JSON.stringify(view.json)).not.toContain(fake.url);

  const granted = await call(gw, "PUT", "/dashboard/api/mcp/grants?account=acme", { cookie, body: { server: "tools", tools: "add" } });
  expect(granted.status).toBe(200);
  expect((await call(gw, "GET", "/dashboard/api/mcp?account=acme", { cookie })).json.keys[0].tools).toEqual(["tools__add"]);
  const client = await connectMcp(gw.url, key);
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["tools__add"]);
  expect((await call(gw, "PUT", "/dashboard/api/mcp/grants?account=acme", { cookie, body: { server: "tols" } })).json.error.message).toContain(
    "did you mean 'tools'",
  );
  expect((await call(gw, "DELETE", "/dashboard/api/mcp/grants?account=acme&server=tools&tools=add", { cookie })).status).toBe(200);
  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["tools__add", "tools__echo"]);
  await client.close();
  const audit = await gw.store.auditRecords({ account: "acme" });
  expect(audit.map((r) => r.action)).toEqual(expect.arrayContaining(["mcp.grant", "mcp.revoke"]));

  const { link } = await addUser(gw.store, { email: "member@example.com", account: "acme", admin: false, role: "member" }, gw.url, Date.now(), SETUP);
  const member = cookieOf(await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } }));
  expect((await call(gw, "GET", "/dashboard/api/mcp?account=acme", { cookie: member })).status).toBe(403);
});
