/**
 * Single sign-on and idle sessions (docs/dashboard.md, "Single sign-on", "Users and sign-in"),
 * against a real OpenID Connect issuer (oidc-provider, helpers/oidc-issuer.ts) driven through
 * Debian's Chromium: Sign in with SSO, the issuer's login and consent, back on the dashboard signed
 * in, provisioned into the mapped account with the claimed role; another domain refused and
 * nobody created; passwords off; an unreachable issuer; an idle session ending while a used one lives.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfig } from "../src/config/config.js";
import { launchChromium } from "./helpers/browser.js";
import { call, cookieOf, PASSWORD, signUp } from "./helpers/dashboard.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import type { TestIssuer } from "./helpers/oidc-issuer.js";
import { gatewayWithIssuer, ssoSignIn as signInThrough } from "./helpers/sso.js";

const CALLBACK = "/dashboard/api/oidc/callback";

describe("config", () => {
  const oidc = { issuer: "https://idp.example.com", clientId: "gw", allowedDomains: { "Example.COM": "acme" } };
  const problem = (dashboard: unknown) => {
    try {
      parseConfig({ dashboard }, {});
    } catch (err) {
      return (err as Error).message;
    }
    return "accepted";
  };

  test("defaults: passwords on, no SSO, 12 h idle; durations as 30m/12h/7d or seconds; domains lower-cased", () => {
    expect(parseConfig({}, {}).dashboard).toMatchObject({ passwordSignIn: true, sessionIdle: 12 * 3_600_000 });
    expect(parseConfig({}, {}).dashboard.oidc).toBeUndefined();
    const d = parseConfig({ dashboard: { sessionIdle: "30m", oidc } }, {}).dashboard;
    expect(d.sessionIdle).toBe(30 * 60_000);
    expect(d.oidc).toMatchObject({ allowedDomains: { "example.com": "acme" }, defaultRole: "member" });
    expect(parseConfig({ dashboard: { sessionIdle: 90 } }, {}).dashboard.sessionIdle).toBe(90_000);
  });

  test("the client secret comes from the environment", () => {
    const d = parseConfig({ dashboard: { oidc: { ...oidc, clientSecret: "${SSO_SECRET}" } } }, { SSO_SECRET: "from-the-env-1234" }).dashboard;
    expect(d.oidc?.clientSecret).toBe("from-the-env-1234");
  });

  test("refused at start: an http issuer off loopback, no domain, passwords off without SSO, a bad duration or role", () => {
    expect(problem({ oidc: { ...oidc, issuer: "http://idp.example.com" } })).toMatch(/dashboard\.oidc\.issuer.*https:\/\/ issuer \(http:\/\/ only on loopback/);
    for (const host of ["127.0.0.1:9000", "localhost:9000", "[::1]:9000"]) expect(problem({ oidc: { ...oidc, issuer: `http://${host}` } })).toBe("accepted");
    expect(problem({ oidc: { ...oidc, allowedDomains: {} } })).toMatch(/dashboard\.oidc\.allowedDomains.*at least one domain/);
    expect(problem({ passwordSignIn: false })).toMatch(/dashboard\.passwordSignIn.*needs dashboard\.oidc/);
    expect(problem({ sessionIdle: "12 hours" })).toMatch(/dashboard\.sessionIdle.*30m, 12h or 7d/);
    expect(problem({ oidc: { ...oidc, defaultRole: "boss" } })).toMatch(/dashboard\.oidc\.defaultRole/);
  });
});

describe("single sign-on through a real issuer", () => {
  let issuer: TestIssuer;
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    ({ issuer, gw } = await gatewayWithIssuer({ allowedDomains: { "allowed.example": "acme" }, roleClaim: "role" }));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await issuer?.close();
  });

  const ssoSignIn = (login: string) => signInThrough(browser, gw, issuer, login);

  test("a user of an allowed domain lands signed in, provisioned into the mapped account with the claimed role", async () => {
    issuer.users.set("user@allowed.example", { email: "User@allowed.example", email_verified: true, role: "admin" });
    const { page, context } = await ssoSignIn("user@allowed.example");
    await expect.poll(() => page.getByRole("heading", { name: "Keys" }).isVisible(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    const me = await page.evaluate(async () => (await fetch("/dashboard/api/me")).json());
    expect(me).toEqual({ email: "user@allowed.example", account: "acme", admin: false, role: "admin", memberships: [{ account: "acme", role: "admin" }] });

    const user = await gw.store.findUser("user@allowed.example");
    expect(user).toMatchObject({ account: "acme", admin: false, passwordHash: null });
    expect((await gw.store.memberships("user@allowed.example")).map((m) => [m.account, m.role])).toEqual([["acme", "admin"]]);
    // One audit record, by the issuer (docs/audit.md): the user was created with the claimed role.
    const actor = `sso:${new URL(issuer.url).host}`;
    const records = async () => (await gw.store.auditRecords()).filter((r) => r.target === "user@allowed.example");
    expect(await records()).toMatchObject([
      { actor, action: "user.add", account: "acme", before: null, after: { account: "acme", admin: false, role: "admin" } },
    ]);
    // The cookie is the normal session's: HttpOnly, SameSite=Strict; the flow's cookie is gone.
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "gateway_session")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(cookies.find((c) => c.name === "gateway_oidc")).toBeUndefined();
    await context.close();

    // The next sign-in follows the claim: the role changes, nothing is created twice.
    issuer.users.set("user@allowed.example", { email: "user@allowed.example", email_verified: true, role: "viewer" });
    const again = await ssoSignIn("user@allowed.example");
    await expect.poll(() => again.page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect((await gw.store.memberships("user@allowed.example")).map((m) => [m.account, m.role])).toEqual([["acme", "viewer"]]);
    expect((await records()).map((r) => [r.actor, r.action, r.before, r.after])).toEqual([
      [actor, "user.add", null, { account: "acme", admin: false, role: "admin" }],
      [actor, "member.role", { role: "admin" }, { role: "viewer" }],
    ]);
    expect((await gw.store.listUsers()).filter((u) => u.email === "user@allowed.example")).toHaveLength(1);
    await again.context.close();
  }, 60_000);

  test("without a role claim a new user gets the default role, member", async () => {
    issuer.users.set("plain@allowed.example", { email: "plain@allowed.example", email_verified: true });
    const { page, context } = await ssoSignIn("plain@allowed.example");
    await expect.poll(() => page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect((await gw.store.memberships("plain@allowed.example")).map((m) => [m.account, m.role])).toEqual([["acme", "member"]]);
    await context.close();
  }, 60_000);

  test("another domain, or an unverified email, is refused with a clear message and nobody is created", async () => {
    issuer.users.set("eve@other.example", { email: "eve@other.example", email_verified: true, role: "owner" });
    const { page, context } = await ssoSignIn("eve@other.example");
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 15_000 }).toContain("email domain is not allowed");
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect(await gw.store.findUser("eve@other.example")).toBeUndefined();
    expect((await context.cookies()).find((c) => c.name === "gateway_session")).toBeUndefined();
    await context.close();

    issuer.users.set("unverified@allowed.example", { email: "unverified@allowed.example", email_verified: false });
    const second = await ssoSignIn("unverified@allowed.example");
    await expect.poll(() => second.page.getByRole("alert").textContent(), { timeout: 15_000 }).toContain("not verified");
    expect(await gw.store.findUser("unverified@allowed.example")).toBeUndefined();
    await second.context.close();
  }, 60_000);

  test("a callback without the sign-in's state cookie, or with a forged state, is refused", async () => {
    const bare = await call(gw, "GET", `${CALLBACK}?code=abc&state=xyz`);
    expect(bare.status).toBe(302);
    expect(bare.headers.get("location")).toBe(`${gw.url}/dashboard/#/?sso_error=sso_failed`);
    expect(bare.headers.get("set-cookie")).not.toContain("gateway_session");

    const start = await call(gw, "GET", "/dashboard/api/oidc/start");
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get("location")!);
    expect(to.origin).toBe(issuer.url);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    expect(to.searchParams.get("redirect_uri")).toBe(`${gw.url}${CALLBACK}`);
    for (const p of ["state", "nonce", "code_challenge"]) expect(to.searchParams.get(p)).toMatch(/^[\w-]{22,}$/);
    expect(start.headers.get("set-cookie")).toMatch(/^gateway_oidc=[\w-]+; Path=\/dashboard\/api\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const forged = await call(gw, "GET", `${CALLBACK}?code=abc&state=not-the-one&iss=${encodeURIComponent(issuer.url)}`, { cookie: cookieOf(start) });
    expect(forged.headers.get("location")).toBe(`${gw.url}/dashboard/#/?sso_error=sso_failed`);
    expect(forged.headers.get("set-cookie")).toMatch(/^gateway_oidc=; Path=\/dashboard\/api\/oidc; Max-Age=0/);
  });

  test("the sign-in page offers both methods; the info API says so", async () => {
    expect((await call(gw, "GET", "/dashboard/api/sign-in-methods")).json).toEqual({ password: true, sso: true });
  });
});

describe("passwords off, issuer unreachable", () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    // Port 9 (discard) on loopback: nothing listens, so discovery fails at once.
    const oidc = { issuer: "http://127.0.0.1:9", clientId: "gw", allowedDomains: { "allowed.example": "acme" }, timeout: 2 };
    gw = await startGateway({ dashboard: { oidc, passwordSignIn: false } });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  test("sign-in by password and by sign-in link is refused; the page shows only SSO", async () => {
    await signUp(gw, "old@allowed.example", "acme").then(
      () => expect.unreachable("the sign-in link must be refused"),
      (err: Error) => expect(err.message).toMatch(/403.*password_sign_in_disabled/),
    );
    const r = await call(gw, "POST", "/dashboard/api/session", { body: { email: "old@allowed.example", password: PASSWORD } });
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ code: "password_sign_in_disabled", message: expect.stringContaining("Sign in with SSO") });
    expect((await call(gw, "GET", "/dashboard/api/sign-in-methods")).json).toEqual({ password: false, sso: true });

    const page = await browser.newPage();
    await page.goto(`${gw.url}/dashboard/`);
    await expect.poll(() => page.getByRole("button", { name: "Sign in with SSO" }).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByLabel("Password").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Sign in", exact: true }).count()).toBe(0);

    // The issuer is down: a clear message, and the gateway serves on.
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 15_000 }).toContain("could not be reached");
    await page.close();
  }, 60_000);
});

describe("idle sessions", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ dashboard: { sessionIdle: "3s" } });
  });
  afterAll(() => gw?.close());

  test("a session unused for sessionIdle ends while one in use lives on", async () => {
    const idle = (await signUp(gw, "idle@example.com", "acme")).cookie;
    const active = (await signUp(gw, "active@example.com", "acme")).cookie;
    const started = Date.now();
    while (Date.now() - started < 4_500) {
      expect((await call(gw, "GET", "/dashboard/api/me", { cookie: active })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await call(gw, "GET", "/dashboard/api/me", { cookie: active })).status).toBe(200);
    const ended = await call(gw, "GET", "/dashboard/api/me", { cookie: idle });
    expect(ended.status).toBe(401);
    expect(ended.json.error.code).toBe("session_required");
  }, 30_000);
});
