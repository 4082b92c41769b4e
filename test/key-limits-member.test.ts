/**
 * Limits an owner or admin set on a member's own key (docs/dashboard.md "Budgets and key
 * limits"): the member may tighten them (a lower budget or rpm, a longer period for no more
 * money, an earlier expiry) and never loosen them (remove, raise, a shorter period): 403 in the
 * error shape, nothing changed, no audit record. Owners and admins may change them either way; a
 * member's own limits on a key nobody else touched stay theirs to change.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { call, cookieOf, PASSWORD, signUp, tokenOf } from "./helpers/dashboard.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

let up: FakeUpstream;
let gw: TestGateway;
const c: Record<string, string> = {};
const api = (who: string, method: string, path: string, body?: unknown) => call(gw, method, `/dashboard/api${path}`, { cookie: c[who]!, body });
const DAY = 86_400_000;

/** The owner adds `email` with `role`; the new user sets a password through their link. */
async function invite(email: string, role: string): Promise<string> {
  const added = await api("owner", "POST", "/members", { email, role });
  expect(added.status, added.text).toBe(201);
  recordSecret(tokenOf(added.json.link));
  const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(added.json.link), password: PASSWORD } });
  expect(r.status, r.text).toBe(200);
  return cookieOf(r);
}

beforeAll(async () => {
  up = await startFakeUpstream(() => completion("hi"));
  gw = await startGateway(openaiConfig(up.url));
  c.owner = (await signUp(gw, "owner@example.com", "acme")).cookie;
  c.admin = await invite("admin@example.com", "admin");
  c.member = await invite("member@example.com", "member");
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

const auditCount = async () => (await gw.store.auditHead()).id;

async function refused(path: string, body: Record<string, unknown>, field: string): Promise<void> {
  const before = await gw.store.findKey(path.split("/")[2]!);
  const records = await auditCount();
  const r = await api("member", "PATCH", path, body);
  expect(r.status, JSON.stringify(body)).toBe(403);
  expect(Object.keys(r.json)).toEqual(["error"]);
  expect(r.json.error).toMatchObject({ type: "invalid_request_error", code: "forbidden" });
  expect(r.json.error.message).toContain(`raising or removing its ${field}`);
  expect(r.json.error.request_id).toBe(r.headers.get("x-request-id"));
  expect(await gw.store.findKey(before!.id)).toEqual(before);
  expect(await auditCount()).toBe(records);
}

test("a member cannot lift the budget, rpm or expiry an admin set on their own key; they may lower them; an admin may do either", async () => {
  const created = await api("member", "POST", "/keys", { name: "mine", budget: "5", rpm: 100 });
  expect(created.status).toBe(201);
  recordSecret(created.json.key);
  const path = `/keys/${created.json.id}`;

  // Limits only the member set are theirs to change, up or down.
  expect((await api("member", "PATCH", path, { budget: "8", rpm: 300 })).json).toMatchObject({ budget: "8", rpm: 300 });

  // An admin tightens them: from now on the member may only tighten further.
  const set = await api("admin", "PATCH", path, { budget: "2", budget_period: "month", rpm: 50, expires_in_days: 30 });
  expect(set.status, set.text).toBe(200);
  expect(set.json).toMatchObject({ budget: "2", budget_period: "month", rpm: 50 });
  const record = (await gw.store.auditRecords()).at(-1)!;

  // What the issue reported, and each loosening alone.
  await refused(path, { budget: null, rpm: 100000 }, "budget, rpm");
  expect(set.json.limits_by_manager).toBe(true);
  expect(record).toMatchObject({ actor: "admin@example.com", action: "key.update", before: { limits_by_manager: false }, after: { limits_by_manager: true } });
  await refused(path, { budget: null }, "budget");
  await refused(path, { budget: "3" }, "budget");
  await refused(path, { budget_period: "day" }, "budget");
  await refused(path, { budget: "1", budget_period: "week" }, "budget");
  await refused(path, { rpm: 100000 }, "rpm");
  await refused(path, { rpm: null }, "rpm");
  await refused(path, { expires_in_days: 365 }, "expiry");
  await refused(path, { expires_in_days: null }, "expiry");

  // Tightening is the member's right: a lower budget over a longer period, a lower rpm, an earlier expiry.
  const lowered = await api("member", "PATCH", path, { budget: "1.5", budget_period: "total", rpm: 20, expires_in_days: 7 });
  expect(lowered.status, lowered.text).toBe(200);
  expect(lowered.json).toMatchObject({ budget: "1.5", budget_period: "total", rpm: 20, limits_by_manager: true });
  expect(Date.parse(lowered.json.expires_at)).toBeLessThanOrEqual(Date.now() + 7 * DAY);
  // Lowered by the member, still the admin's: back up to the admin's own values is loosening too.
  await refused(path, { rpm: 50 }, "rpm");

  // Owners and admins may lift or remove them.
  const lifted = await api("owner", "PATCH", path, { budget: null, rpm: 100000, expires_in_days: null });
  expect(lifted.status, lifted.text).toBe(200);
  expect(lifted.json).toMatchObject({ budget: null, rpm: 100000, expires_at: null });
});

test("a member's key with no limit an admin set: the member may add one where there was none", async () => {
  const created = await api("member", "POST", "/keys", { name: "second" });
  recordSecret(created.json.key);
  const path = `/keys/${created.json.id}`;
  expect((await api("admin", "PATCH", path, { rpm: 10 })).json).toMatchObject({ rpm: 10, budget: null });
  // A budget and an expiry where there were none only tighten.
  expect((await api("member", "PATCH", path, { budget: "4", expires_in_days: 3 })).status).toBe(200);
  await refused(path, { budget: "5" }, "budget");
  await refused(path, { rpm: 11 }, "rpm");
});
