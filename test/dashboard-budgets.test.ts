/**
 * Budgets and key edits in the dashboard API (docs/dashboard.md "Budgets"): a key created with a
 * budget, edited with PATCH as `keys update` does (and only within the user's account); the
 * account's and a member's budgets set, listed with spend and remaining, removed; only owners,
 * admins and instance administrators manage them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { call, signUp } from "./helpers/dashboard.js";
import { completion } from "./helpers/openai-wire.js";

let up: FakeUpstream;
let gw: TestGateway;
let owner: string;
let viewer: string;
let other: string;

beforeAll(async () => {
  up = await startFakeUpstream(() => completion("hi", { prompt_tokens: 10, completion_tokens: 5 }));
  gw = await startGateway(openaiConfig(up.url));
  owner = (await signUp(gw, "olive@example.com", "acme")).cookie;
  viewer = (await signUp(gw, "vic@example.com", "acme")).cookie;
  await gw.store.setMembership({ email: "vic@example.com", account: "acme", role: "viewer", createdAt: Date.now() });
  other = (await signUp(gw, "otto@example.com", "globex")).cookie;
});
afterAll(async () => {
  await gw.close();
  await up.close();
});

describe("keys: budget on create, edit with PATCH", () => {
  it("creates with a budget and period, edits budget, period, rpm and expiry, clears them with null", async () => {
    const made = await call(gw, "POST", "/dashboard/api/keys", { cookie: owner, body: { name: "ci", budget: "12.5", budget_period: "week", rpm: 10 } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ budget: "12.5", budget_period: "week", rpm: 10, spent: "0" });
    const id = made.json.id as string;
    const edited = await call(gw, "PATCH", `/dashboard/api/keys/${id}`, {
      cookie: owner,
      body: { budget: "3", budget_period: "day", rpm: 20, expires_in_days: 30 },
    });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ budget: "3", budget_period: "day", rpm: 20 });
    expect(Date.parse(edited.json.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await gw.store.findKey(id))!.budget).toBe(3_000_000_000n);
    const cleared = await call(gw, "PATCH", `/dashboard/api/keys/${id}`, { cookie: owner, body: { budget: null, rpm: null, expires_in_days: null } });
    expect(cleared.json).toMatchObject({ budget: null, rpm: null, expires_at: null });
    expect((await call(gw, "PATCH", `/dashboard/api/keys/${id}`, { cookie: other, body: { rpm: 1 } })).status).toBe(404);
    expect((await call(gw, "PATCH", `/dashboard/api/keys/${id}`, { cookie: owner, body: { budget: "-1" } })).status).toBe(400);
    expect((await gw.store.findKey(id))!.rpm).toBeNull();
  });
});

describe("budgets", () => {
  it("sets the account's and a member's budget, lists them with spend and remaining, removes them", async () => {
    const acct = await call(gw, "PUT", "/dashboard/api/budgets", { cookie: owner, body: { member: null, amount: "100", period: "month" } });
    expect(acct.status).toBe(200);
    expect(acct.json).toEqual({ account: "acme", member: null, level: "account", limit: "100", period: "month", spent: "0", remaining: "100" });
    const member = await call(gw, "PUT", "/dashboard/api/budgets", { cookie: owner, body: { member: "vic@example.com", amount: "5", period: "day" } });
    expect(member.json).toMatchObject({ member: "vic@example.com", level: "member", limit: "5", period: "day" });
    const stranger = await call(gw, "PUT", "/dashboard/api/budgets", { cookie: owner, body: { member: "otto@example.com", amount: "5" } });
    expect(stranger.status).toBe(404);
    const list = await call(gw, "GET", "/dashboard/api/budgets", { cookie: owner });
    expect(list.json.budgets.map((b: { member: string | null }) => b.member)).toEqual([null, "vic@example.com"]);
    expect(list.json.members).toEqual(expect.arrayContaining(["olive@example.com", "vic@example.com"]));
    expect((await call(gw, "DELETE", "/dashboard/api/budgets?member=vic%40example.com", { cookie: owner })).status).toBe(200);
    expect((await call(gw, "DELETE", "/dashboard/api/budgets?member=vic%40example.com", { cookie: owner })).status).toBe(404);
    expect((await call(gw, "GET", "/dashboard/api/budgets", { cookie: owner })).json.budgets).toHaveLength(1);
  });

  it("a viewer may not manage budgets; another account's holder cannot reach them", async () => {
    const r = await call(gw, "PUT", "/dashboard/api/budgets", { cookie: viewer, body: { member: null, amount: "1" } });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("forbidden");
    expect((await call(gw, "GET", "/dashboard/api/budgets", { cookie: viewer })).status).toBe(403);
    expect((await call(gw, "GET", "/dashboard/api/budgets?account=acme", { cookie: other })).status).toBe(404);
    expect((await gw.store.listBudgets("acme", Date.now())).map((b) => b.amount)).toEqual([100_000_000_000n]);
  });

  it("is described in the dashboard's OpenAPI document", async () => {
    const doc = (await call(gw, "GET", "/dashboard/api/openapi.json")).json;
    expect(Object.keys(doc.paths["/budgets"]).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.paths["/keys/{id}"].patch).toBeDefined();
  });
});
