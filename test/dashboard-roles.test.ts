/**
 * Members and roles (docs/dashboard.md, "Members and roles"), over HTTP on loopback and through
 * the built CLI: what owner, admin, member and viewer may and may not do in an account (keys,
 * members, BYOK, credits, usage), a member's 404 for another member's key, several accounts per
 * user, role changes applying to the very next request, and the last owner kept.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import { gateway, tempDir } from "./helpers/cli.js";
import { resetUser } from "../src/operations/dashboard-users.js";
import { call, cookieOf, PASSWORD, SETUP, signUp, tokenOf } from "./helpers/dashboard.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

let up: FakeUpstream;
let gw: TestGateway;
const c: Record<string, string> = {};
const api = (who: string, method: string, path: string, body?: unknown) => call(gw, method, `/dashboard/api${path}`, { cookie: c[who]!, body });

/** The owner adds `email` with `role` from the Members page's API; the new user spends their link. */
async function invite(by: string, email: string, role: string, account?: string): Promise<string> {
  const added = await api(by, "POST", "/members", { email, role, ...(account ? { account } : {}) });
  expect(added.status, added.text).toBe(201);
  expect(added.json).toMatchObject({ email, role, created: true });
  recordSecret(tokenOf(added.json.link));
  const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(added.json.link), password: PASSWORD } });
  expect(r.status).toBe(200);
  return cookieOf(r);
}

beforeAll(async () => {
  up = await startFakeUpstream(() => completion("hi", { prompt_tokens: 10, completion_tokens: 5 }));
  gw = await startGateway(openaiConfig(up.url));
  c.owner = (await signUp(gw, "owner@example.com", "acme")).cookie;
  c.admin = await invite("owner", "admin@example.com", "admin");
  c.member = await invite("owner", "member@example.com", "member");
  c.member2 = await invite("owner", "member2@example.com", "member");
  c.viewer = await invite("owner", "viewer@example.com", "viewer");
  await gw.addCredits("5", "acme");
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

describe("keys per role", () => {
  it("owner and admin see every key; a member only theirs, another's reads as missing; a viewer none", async () => {
    const ids: Record<string, string> = {};
    for (const who of ["owner", "admin", "member", "member2"]) {
      const r = await api(who, "POST", "/keys", { name: `${who}-key` });
      expect(r.status, who).toBe(201);
      recordSecret(r.json.key);
      ids[who] = r.json.id;
    }
    const names = async (who: string) => (await api(who, "GET", "/keys")).json.map((k: any) => k.name).sort();
    expect(await names("owner")).toEqual(["admin-key", "member-key", "member2-key", "owner-key"]);
    expect(await names("admin")).toEqual(["admin-key", "member-key", "member2-key", "owner-key"]);
    expect(await names("member")).toEqual(["member-key"]);

    for (const [method, path, body] of [
      ["GET", "/keys", undefined],
      ["POST", "/keys", { name: "viewer-key" }],
      ["POST", `/keys/${ids.member}/revoke`, undefined],
    ] as const) {
      const r = await api("viewer", method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json.error.code).toBe("forbidden");
      expect(r.json.error.message).toMatch(/'owner', 'admin' or 'member'.*yours is 'viewer'/);
    }

    const other = await api("member", "POST", `/keys/${ids.member2}/revoke`);
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe("key_not_found");
    const missing = await api("member", "POST", "/keys/no-such-key/revoke");
    expect(missing.json.error).toEqual({ ...other.json.error, message: missing.json.error.message, request_id: missing.json.error.request_id });
    expect((await gw.store.findKey(ids.member2!))!.revokedAt).toBeNull();

    expect((await api("member", "POST", `/keys/${ids.member}/revoke`)).json.state).toBe("revoked");
    expect((await api("admin", "POST", `/keys/${ids.member2}/revoke`)).json.state).toBe("revoked");
  });
});

describe("members, BYOK and credits per role", () => {
  it("only the owner manages members and BYOK; the last owner is kept", async () => {
    const list = await api("owner", "GET", "/members");
    expect(list.json.map((m: any) => [m.email, m.role])).toEqual([
      ["admin@example.com", "admin"],
      ["member2@example.com", "member"],
      ["member@example.com", "member"],
      ["owner@example.com", "owner"],
      ["viewer@example.com", "viewer"],
    ]);
    for (const who of ["admin", "member", "viewer"]) {
      for (const [method, path, body] of [
        ["GET", "/members", undefined],
        ["POST", "/members", { email: "x@example.com", role: "viewer" }],
        ["PUT", "/members/viewer@example.com", { role: "owner" }],
        ["DELETE", "/members/viewer@example.com", undefined],
        ["GET", "/byok", undefined],
        ["PUT", "/byok/openai", { key: "sk-never-stored-1234" }],
        ["DELETE", "/byok/openai", undefined],
      ] as const) {
        const r = await api(who, method, path, body);
        expect(r.status, `${who} ${method} ${path}`).toBe(403);
        expect(r.json.error).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the role 'owner'") });
      }
    }
    expect((await api("owner", "GET", "/byok")).status).toBe(200);
    expect(await gw.store.findUser("x@example.com")).toBeUndefined();

    const demote = await api("owner", "PUT", "/members/owner@example.com", { role: "admin" });
    expect(demote.status).toBe(400);
    expect(demote.json.error.code).toBe("last_owner");
    expect((await api("owner", "DELETE", "/members/owner@example.com")).json.error.code).toBe("last_owner");
    expect((await api("owner", "PUT", "/members/nobody@example.com", { role: "admin" })).status).toBe(404);
    expect((await api("owner", "PUT", "/members/viewer@example.com", { role: "chief" })).status).toBe(400);

    // Credits: the account's balance is for owner, admin and viewer; a member sees their own usage only.
    for (const [who, status] of [
      ["owner", 200],
      ["admin", 200],
      ["viewer", 200],
      ["member", 403],
    ] as const)
      expect((await api(who, "GET", "/credits")).status, who).toBe(status);
  });

  it("a role change or a removal applies to the very next request", async () => {
    c.temp = await invite("owner", "temp@example.com", "admin");
    expect((await api("temp", "GET", "/credits")).status).toBe(200);
    const set = await api("owner", "PUT", "/members/temp@example.com", { role: "viewer" });
    expect(set.json).toMatchObject({ email: "temp@example.com", role: "viewer" });
    expect((await api("temp", "GET", "/keys")).status).toBe(403);
    expect((await api("temp", "GET", "/me")).json).toMatchObject({ role: "viewer", memberships: [{ account: "acme", role: "viewer" }] });
    expect((await api("owner", "DELETE", "/members/temp@example.com")).json).toEqual({ email: "temp@example.com", account: "acme", removed: true });
    const gone = await api("temp", "GET", "/usage?account=acme");
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe("account_not_found");
    expect(await gw.store.findUser("temp@example.com")).toBeDefined();
  });
});

describe("usage per role and several accounts", () => {
  it("a member's usage is their own keys'; a viewer reads the account's", async () => {
    const mine = await api("member", "POST", "/keys", { name: "member-usage" });
    const theirs = await api("admin", "POST", "/keys", { name: "admin-usage" });
    for (const [k, team] of [
      [mine.json.key, "search"],
      [theirs.json.key, "search"],
      [theirs.json.key, "ads"],
    ]) {
      recordSecret(k);
      const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };
      await gw.client(k).chat.completions.create(body, { headers: { "x-gateway-tags": `team=${team}` } });
    }
    const member = (await api("member", "GET", "/usage")).json;
    expect(member.requests).toBe(1);
    expect(member.recent.map((r: any) => r.key_name)).toEqual(["member-usage"]);
    expect(member.by_key.map((k: any) => k.name)).toEqual(["member-usage"]);
    expect(member.daily.reduce((s: number, d: any) => s + d.requests, 0)).toBe(1);
    const viewer = (await api("viewer", "GET", "/usage")).json;
    expect(viewer.requests).toBe(3);
    expect(viewer.recent.map((r: any) => r.key_name).sort()).toEqual(["admin-usage", "admin-usage", "member-usage"]);

    // Usage by tag: the member's breakdown covers only their key, and its CSV is the same rows.
    const groups = async (who: string, by: string) => (await api(who, "GET", `/usage/groups?by=${by}`)).json.data;
    const cost = member.by_key[0].cost;
    expect(await groups("member", "tag:team")).toEqual([{ group: "search", requests: 1, prompt_tokens: 10, completion_tokens: 5, cost }]);
    expect(await groups("member", "key")).toEqual([{ group: mine.json.id, requests: 1, prompt_tokens: 10, completion_tokens: 5, cost }]);
    expect((await groups("member", "member")).map((r: any) => r.group)).toEqual(["member@example.com"]);
    const csv = await api("member", "GET", "/usage/groups.csv?by=tag:team");
    expect(csv.status).toBe(200);
    expect(csv.text).toBe(`group,requests,prompt_tokens,completion_tokens,cost\nsearch,1,10,5,${cost}\n`);
    const all = (await groups("viewer", "tag:team")).map((r: any) => [r.group, r.requests]);
    expect(all).toEqual([
      ["search", 2],
      ["ads", 1],
    ]);
    expect((await groups("admin", "tag:team")).map((r: any) => [r.group, r.requests])).toEqual(all);
  });

  it("a user in two accounts switches with ?account=, with the role of each; an instance admin is owner everywhere", async () => {
    c.beta = (await signUp(gw, "beta-owner@example.com", "beta")).cookie;
    const joined = await api("beta", "POST", "/members", { email: "member@example.com", role: "viewer" });
    // acme's owner invited member@example.com: beta's owner cannot vouch for that password, so the
    // membership waits until the operator's link sets one (docs/dashboard.md "Invitations").
    expect(joined.json).toMatchObject({ created: false, pending: true, link: null, role: "viewer", account: "beta" });
    expect((await api("member", "GET", "/me")).json.memberships).toEqual([{ account: "acme", role: "member" }]);
    const { link } = await resetUser(gw.store, "member@example.com", gw.url, Date.now(), SETUP);
    recordSecret(tokenOf(link));
    const set = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } });
    expect(set.status).toBe(200);
    c.member = cookieOf(set);
    const me = (await api("member", "GET", "/me")).json;
    expect(me).toMatchObject({ account: "acme", role: "member" });
    expect(me.memberships).toEqual([
      { account: "acme", role: "member" },
      { account: "beta", role: "viewer" },
    ]);
    expect((await api("member", "GET", "/keys?account=beta")).status).toBe(403);
    expect((await api("member", "GET", "/usage?account=beta")).json.account).toBe("beta");
    expect((await api("member", "GET", "/accounts")).json.map((a: any) => a.id)).toEqual(["beta"]);
    expect((await api("beta", "GET", "/keys?account=acme")).status).toBe(404);

    c.root = (await signUp(gw, "root@example.com", "ops", true)).cookie;
    expect((await api("root", "GET", "/members?account=acme")).status).toBe(200);
    expect((await api("root", "GET", "/byok?account=beta")).status).toBe(200);
  });
});

describe("gateway members and users add --role", () => {
  test("list, set-role, remove; the last owner is refused; bad roles are bad usage", async () => {
    const d = tempDir();
    const g = (...args: string[]) => gateway(["--db", join(d, "gateway.db"), ...args], { cwd: d });
    expect((await g("users", "add", "o@example.com", "--account", "acme", "--create")).exitCode).toBe(0);
    const added = await g("--json", "users", "add", "v@example.com", "--account", "acme", "--role", "viewer");
    expect(added.json).toMatchObject({ email: "v@example.com", account: "acme", role: "viewer", admin: false });
    recordSecret(tokenOf(added.json.link));
    expect((await g("users", "add", "x@example.com", "--account", "acme", "--role", "chief")).exitCode).toBe(2);

    // An existing user joins another account; no new link (they keep their password).
    expect((await g("users", "add", "b@example.com", "--account", "beta", "--create")).exitCode).toBe(0);
    const joined = await g("--json", "users", "add", "v@example.com", "--account", "beta", "--role", "member");
    expect(joined.json).toMatchObject({ email: "v@example.com", account: "beta", role: "member", link: null });
    expect((await g("users", "add", "v@example.com", "--account", "beta")).exitCode).toBe(1);

    const list = await g("--json", "members", "list", "--account", "acme");
    expect(list.json).toEqual([
      { email: "o@example.com", role: "owner", pending: false, created_at: expect.any(String) },
      { email: "v@example.com", role: "viewer", pending: false, created_at: expect.any(String) },
    ]);
    expect((await g("members", "list", "--account", "acme")).stdout).toMatch(/^EMAIL\s+ROLE\s+SINCE\s+STATE\n/);

    const last = await g("members", "set-role", "o@example.com", "admin", "--account", "acme");
    expect(last.exitCode).toBe(1);
    expect(last.stderr).toMatch(/must keep at least one owner/);
    expect((await g("members", "remove", "o@example.com", "--account", "acme")).exitCode).toBe(1);
    expect((await g("members", "set-role", "v@example.com", "boss", "--account", "acme")).exitCode).toBe(2);
    expect((await g("members", "list", "--account", "acme-typo")).exitCode).toBe(1);

    expect((await g("--json", "members", "set-role", "v@example.com", "owner", "--account", "acme")).json).toMatchObject({ role: "owner" });
    expect((await g("members", "set-role", "o@example.com", "member", "--account", "acme")).exitCode).toBe(0);
    expect((await g("--json", "members", "remove", "o@example.com", "--account", "acme")).json).toEqual({
      email: "o@example.com",
      account: "acme",
      removed: true,
    });
    expect((await g("members", "remove", "o@example.com", "--account", "acme")).exitCode).toBe(1);
    expect((await g("--json", "members", "list", "--account", "acme")).json.map((m: any) => [m.email, m.role])).toEqual([["v@example.com", "owner"]]);
    expect((await g("--json", "members", "list", "--account", "beta")).json.map((m: any) => m.email)).toEqual(["b@example.com", "v@example.com"]);
  }, 300_000); // two dozen CLI child processes: slow on a busy 2-core machine
});
