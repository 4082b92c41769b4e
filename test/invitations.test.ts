/**
 * Invitations (docs/dashboard.md "Invitations"): the owner of one account adds an address that
 * has no dashboard user yet, receives its sign-in link and sets the password. That password must
 * never open another account the address joins later, by any of the three ways in: the
 * operator's `users add`, another owner's Add member, a first single sign-on (with
 * `defaultRole: admin`, against the real OIDC issuer in Chromium). The person is told, the audit
 * log records it, and sessions the pre-set password opened never gain the new membership.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "./helpers/browser.js";
import { assertBuilt, gateway } from "./helpers/cli.js";
import { call, cookieOf, signUp, tokenOf } from "./helpers/dashboard.js";
import type { TestGateway } from "./helpers/gateway.js";
import type { TestIssuer } from "./helpers/oidc-issuer.js";
import { recordSecret } from "./helpers/secrets.js";
import { gatewayWithIssuer, ssoSignIn } from "./helpers/sso.js";

const ATTACKER_PASSWORD = "the attacker's chosen password";
const VICTIM_PASSWORD = "the real person's own password";

let issuer: TestIssuer;
let gw: TestGateway;
let browser: Browser;
const c: Record<string, string> = {};
const api = (cookie: string, method: string, path: string, body?: unknown) => call(gw, method, `/dashboard/api${path}`, { cookie, body });
const cli = (...args: string[]) => gateway(["--db", gw.db, ...args], { cwd: gw.dir });
const signIn = (email: string, password: string) => call(gw, "POST", "/dashboard/api/session", { body: { email, password } });
const records = async (target: string) => (await gw.store.auditRecords()).filter((r) => r.target === target);

async function setPassword(link: string, password: string) {
  recordSecret(tokenOf(link));
  const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password } });
  expect(r.status, r.text).toBe(200);
  return { cookie: cookieOf(r), me: r.json };
}

/** The owner of `evil` adds `email` (no dashboard user yet), takes its link and sets the password. */
async function preRegister(email: string): Promise<string> {
  const added = await api(c.evil!, "POST", "/members", { email, role: "member" });
  expect(added.json).toMatchObject({ created: true });
  return (await setPassword(added.json.link, ATTACKER_PASSWORD)).cookie;
}

/** What a session reaches in `account`: 200 for its Audit page (owners and admins), or the 404 of an account it is not in. */
const reach = async (cookie: string, account: string) => (await api(cookie, "GET", `/audit?account=${account}`)).status;

beforeAll(async () => {
  assertBuilt();
  ({ issuer, gw } = await gatewayWithIssuer({ allowedDomains: { "goodco.example": "goodco" }, defaultRole: "admin" }));
  browser = await launchChromium();
  c.evil = (await signUp(gw, "owner@evil.example", "evil")).cookie;
  c.corp = (await signUp(gw, "owner@corp.example", "corp")).cookie;
  c.globex = (await signUp(gw, "owner@globex.example", "globex")).cookie;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await issuer?.close();
});

describe("a password an owner's invitation set never opens another account", () => {
  test("the operator's users add: the membership is pending, a new link is printed; the pre-set password and its sessions never reach it", async () => {
    const attacker = await preRegister("ceo@corp.example");
    const added = await cli("--json", "users", "add", "ceo@corp.example", "--account", "corp", "--role", "owner");
    expect(added.exitCode, added.stderr).toBe(0);

    // Neither the session the pre-set password opened nor a new sign-in with it reaches corp.
    expect(await reach(attacker, "corp")).toBe(404);
    const again = await signIn("ceo@corp.example", ATTACKER_PASSWORD);
    expect(again.status).toBe(200);
    expect(again.json.memberships).toEqual([{ account: "evil", role: "member" }]);
    expect(await reach(cookieOf(again), "corp")).toBe(404);
    expect((await api(cookieOf(again), "GET", "/keys?account=corp")).status).toBe(404);
    expect(added.json).toMatchObject({
      email: "ceo@corp.example",
      account: "corp",
      role: "owner",
      pending: true,
      link: expect.stringContaining("#/set-password?token="),
    });

    // The person the operator gives the link to chooses their own password: it opens corp, and the pre-set one is dead with its sessions.
    const victim = await setPassword(added.json.link, VICTIM_PASSWORD);
    expect(victim.me.memberships).toEqual([
      { account: "evil", role: "member" },
      { account: "corp", role: "owner" },
    ]);
    expect(await reach(victim.cookie, "corp")).toBe(200);
    expect((await api(attacker, "GET", "/me")).status).toBe(401);
    expect((await api(cookieOf(again), "GET", "/me")).status).toBe(401);
    expect((await signIn("ceo@corp.example", ATTACKER_PASSWORD)).status).toBe(401);

    const actions = (await records("ceo@corp.example")).map((r) => [r.action, r.after]);
    expect(actions).toEqual([
      ["user.add", { account: "evil", admin: false, role: "member", vouched_by: "evil" }],
      ["user.password", { password_set: true, vouched_by: "evil" }],
      ["member.add", { role: "owner", pending: true }],
      ["user.reset", { link_expires_at: expect.any(String), reason: "joined 'corp'" }],
      ["user.password", { password_set: true, vouched_by: null }],
    ]);
  }, 60_000);

  test("the operator's users add in human form says why the user gets a new link", async () => {
    await preRegister("cfo@corp.example");
    const added = await cli("users", "add", "cfo@corp.example", "--account", "corp", "--role", "admin");
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain("was added by another account's owner, whose sign-in link set (or would set) their password: it does not open 'corp'");
  }, 60_000);

  test("another owner's Add member: pending, no link for that owner; the pre-set password reaches nothing new; the owner is told", async () => {
    const attacker = await preRegister("cto@globex.example");
    const added = await api(c.globex!, "POST", "/members", { email: "cto@globex.example", role: "owner" });
    expect(added.status).toBe(201);
    expect(await reach(attacker, "globex")).toBe(404);
    const again = await signIn("cto@globex.example", ATTACKER_PASSWORD);
    expect(again.json.memberships).toEqual([{ account: "evil", role: "member" }]);
    expect((await api(cookieOf(again), "GET", "/members?account=globex")).status).toBe(404);

    expect(added.json).toMatchObject({ email: "cto@globex.example", created: false, pending: true, link: null, expires_at: null });
    const members = (await api(c.globex!, "GET", "/members")).json;
    expect(members).toContainEqual({ email: "cto@globex.example", role: "owner", pending: true, created_at: expect.any(String) });
    // A pending owner is no owner: globex's real owner stays the last one.
    expect((await api(c.globex!, "DELETE", "/members/owner@globex.example")).json.error.code).toBe("last_owner");
    expect((await records("cto@globex.example")).at(-1)).toMatchObject({
      actor: "owner@globex.example",
      action: "member.add",
      after: { role: "owner", pending: true },
    });
  });

  test("the other way round: an owner adding someone another account vouched for gets no link, locks nobody out and reaches nothing", async () => {
    const carol = await api(c.corp!, "POST", "/members", { email: "carol@corp.example", role: "admin" });
    const own = await setPassword(carol.json.link, VICTIM_PASSWORD);
    const added = await api(c.evil!, "POST", "/members", { email: "carol@corp.example", role: "viewer" });
    expect(added.json).toMatchObject({ created: false, pending: true, link: null });
    expect(await reach(own.cookie, "corp")).toBe(200);
    const signedIn = await signIn("carol@corp.example", VICTIM_PASSWORD);
    expect(signedIn.json.memberships).toEqual([{ account: "corp", role: "admin" }]);
    // Someone the operator vouched for joins at once, and keeps their password.
    const joined = await api(c.evil!, "POST", "/members", { email: "owner@corp.example", role: "viewer" });
    expect(joined.json).toMatchObject({ created: false, pending: false, link: null });
  });

  test("an instance administrator's Add member vouches as the operator does: pending, with a new link the person redeems", async () => {
    const attacker = await preRegister("ops@globex.example");
    c.root = (await signUp(gw, "root@ops.example", "ops", true)).cookie;
    const added = await api(c.root!, "POST", "/members", { email: "ops@globex.example", role: "admin", account: "globex" });
    expect(added.json).toMatchObject({ created: false, pending: true, link: expect.stringContaining("#/set-password?token=") });
    expect(await reach(attacker, "globex")).toBe(404);
    const person = await setPassword(added.json.link, VICTIM_PASSWORD);
    expect(await reach(person.cookie, "globex")).toBe(200);
    expect((await api(attacker, "GET", "/me")).status).toBe(401);
  });

  test("a first single sign-on (defaultRole admin): the pre-set password is removed with its sessions, the person is told, the audit log says so", async () => {
    const attacker = await preRegister("dana@goodco.example");
    issuer.users.set("dana", { email: "dana@goodco.example", email_verified: true });
    const { page, context } = await ssoSignIn(browser, gw, issuer, "dana");
    // The pre-set password no longer signs in, and the session it opened is over.
    expect((await signIn("dana@goodco.example", ATTACKER_PASSWORD)).status).toBe(401);
    expect((await api(attacker, "GET", "/me")).status).toBe(401);
    expect(page.url()).toContain("sso_notice=password_removed");
    await expect.poll(() => page.getByRole("status").filter({ hasText: "single sign-on" }).textContent(), { timeout: 10_000 }).toContain("has been removed");

    const cookie = (await context.cookies()).find((k) => k.name === "gateway_session")!;
    const me = (await api(`${cookie.name}=${cookie.value}`, "GET", "/me")).json;
    expect(me.memberships).toEqual([
      { account: "evil", role: "member" },
      { account: "goodco", role: "admin" },
    ]);
    await context.close();
    const host = new URL(issuer.url).host;
    expect((await records("dana@goodco.example")).slice(-2)).toMatchObject([
      { actor: `sso:${host}`, action: "user.vouched", before: { vouched_by: "evil", password_set: true }, after: { vouched_by: null, password_set: false } },
      { actor: `sso:${host}`, action: "member.add", after: { role: "admin" } },
    ]);
  }, 60_000);
});
