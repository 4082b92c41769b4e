/**
 * Dashboard sign-in security over HTTP on loopback (docs/dashboard.md): cookie flags, the Origin
 * check, single-use and expiring sign-in links, server-side sign-out, and throttling (10
 * failures per user, 30 per IP in 15 minutes, answered 429 in docs/http.md's error shape).
 */
import { afterEach, describe, expect, it } from "vitest";
import { hashToken } from "../src/operations/sign-in-link.js";
import { addUser } from "../src/operations/dashboard-users.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { call, cookieOf, PASSWORD, SETUP, signUp, tokenOf } from "./helpers/dashboard.js";

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const errorShape = (json: any) => expect(Object.keys(json.error).sort()).toEqual(["code", "message", "request_id", "type"]);

describe("sessions", () => {
  it("sets an HttpOnly, SameSite=Strict cookie, Secure only over HTTPS or a trusted proxy saying so", async () => {
    gw = await startGateway({});
    const { link } = await addUser(gw.store, { email: "a@example.com", account: "a", admin: false }, gw.url, Date.now(), SETUP);
    const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } });
    expect(r.status).toBe(200);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^gateway_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/dashboard");
    expect(cookie).not.toContain("Secure");
    // X-Forwarded-Proto is not believed without server.trustProxy.
    const untrusted = await call(gw, "POST", "/dashboard/api/session", {
      body: { email: "a@example.com", password: PASSWORD },
      headers: { "x-forwarded-proto": "https" },
    });
    expect(untrusted.status).toBe(200);
    expect(untrusted.headers.get("set-cookie")).not.toContain("Secure");
    await gw.close();

    gw = await startGateway({ server: { trustProxy: true } });
    await addUser(gw.store, { email: "b@example.com", account: "b", admin: false }, gw.url, Date.now(), SETUP).then(async ({ link: l }) => {
      // Behind a TLS proxy the browser's Origin is https.
      const origin = gw!.url.replace("http:", "https:");
      const s = await call(gw!, "POST", "/dashboard/api/password", {
        body: { token: tokenOf(l), password: PASSWORD },
        origin,
        headers: { "x-forwarded-proto": "https" },
      });
      expect(s.status).toBe(200);
      expect(s.headers.get("set-cookie")).toContain("; Secure");
    });
  });

  it("signing out deletes the session on the server: the old cookie no longer works", async () => {
    gw = await startGateway({});
    const { cookie } = await signUp(gw, "a@example.com", "a");
    expect((await call(gw, "GET", "/dashboard/api/me", { cookie })).json).toEqual({
      email: "a@example.com",
      account: "a",
      admin: false,
      role: "owner",
      memberships: [{ account: "a", role: "owner" }],
    });
    const out = await call(gw, "DELETE", "/dashboard/api/session", { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const after = await call(gw, "GET", "/dashboard/api/me", { cookie });
    expect(after.status).toBe(401);
    errorShape(after.json);
    expect(after.json.error.type).toBe("authentication_error");
  });

  it("refuses state-changing requests without the dashboard's own Origin", async () => {
    gw = await startGateway({});
    const { cookie } = await signUp(gw, "a@example.com", "a");
    for (const origin of [null, "http://evil.example", gw.url.replace("127.0.0.1", "localhost")]) {
      const create = await call(gw, "POST", "/dashboard/api/keys", { cookie, origin, body: { name: "k1" } });
      expect(create.status).toBe(403);
      errorShape(create.json);
      expect(create.json.error.code).toBe("origin_mismatch");
      expect((await call(gw, "DELETE", "/dashboard/api/session", { cookie, origin })).status).toBe(403);
      expect((await call(gw, "POST", "/dashboard/api/session", { origin, body: { email: "a@example.com", password: PASSWORD } })).status).toBe(403);
    }
    expect(await gw.store.listKeys("a")).toEqual([]);
    expect((await call(gw, "GET", "/dashboard/api/me", { cookie })).status).toBe(200); // the refused sign-out ended nothing
    expect((await call(gw, "POST", "/dashboard/api/keys", { cookie, body: { name: "k1" } })).status).toBe(201);
  });
});

describe("removing a user", () => {
  it("ends their sessions at once", async () => {
    gw = await startGateway({});
    const { cookie } = await signUp(gw, "a@example.com", "a");
    const { removeUser } = await import("../src/operations/dashboard-users.js");
    await removeUser(gw.store, "a@example.com", Date.now(), SETUP);
    expect((await call(gw, "GET", "/dashboard/api/keys", { cookie })).status).toBe(401);
    expect((await call(gw, "POST", "/dashboard/api/session", { body: { email: "a@example.com", password: PASSWORD } })).status).toBe(401);
  });
});

describe("sign-in links", () => {
  it("work once, expire, and are replaced by a reset", async () => {
    gw = await startGateway({});
    const { link, cookie } = await signUp(gw, "a@example.com", "a");
    const again = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: "another password 1" } });
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe("invalid_link");
    expect((await call(gw, "POST", "/dashboard/api/session", { body: { email: "a@example.com", password: "another password 1" } })).status).toBe(401);

    await gw.store.createSignInLink(hashToken("expired-token"), "a@example.com", Date.now() - 1, null);
    expect((await call(gw, "POST", "/dashboard/api/password", { body: { token: "expired-token", password: "another password 1" } })).status).toBe(400);

    const { resetUser } = await import("../src/operations/dashboard-users.js");
    const first = await resetUser(gw.store, "a@example.com", gw.url, Date.now(), SETUP);
    const second = await resetUser(gw.store, "A@Example.com", gw.url, Date.now(), SETUP);
    expect((await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(first.link), password: "another password 1" } })).status).toBe(400);
    const ok = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(second.link), password: "another password 2" } });
    expect(ok.status).toBe(200);
    expect((await call(gw, "GET", "/dashboard/api/me", { cookie })).status).toBe(401); // a new password ends the other sessions
    expect((await call(gw, "GET", "/dashboard/api/me", { cookie: cookieOf(ok) })).status).toBe(200);
    expect((await call(gw, "POST", "/dashboard/api/session", { body: { email: "a@example.com", password: "another password 2" } })).status).toBe(200);
    expect((await call(gw, "POST", "/dashboard/api/session", { body: { email: "a@example.com", password: PASSWORD } })).status).toBe(401);
  });

  it("a too-short password is refused without spending the link", async () => {
    gw = await startGateway({});
    const { link } = await addUser(gw.store, { email: "a@example.com", account: "a", admin: false }, gw.url, Date.now(), SETUP);
    const short = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: "short" } });
    expect(short.status).toBe(400);
    expect(short.json.error.message).toMatch(/^password: /);
    expect((await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } })).status).toBe(200);
  });
});

describe("sign-in throttling", () => {
  it("allows 10 failures per user in 15 minutes, then answers 429 even to the right password", async () => {
    gw = await startGateway({});
    await signUp(gw, "a@example.com", "a");
    for (let i = 0; i < 10; i++) {
      const r = await call(gw, "POST", "/dashboard/api/session", { body: { email: "a@example.com", password: `wrong ${i}` } });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe("invalid_credentials");
    }
    const blocked = await call(gw, "POST", "/dashboard/api/session", { body: { email: "A@example.com", password: PASSWORD } });
    expect(blocked.status).toBe(429);
    errorShape(blocked.json);
    expect(blocked.json.error.type).toBe("rate_limit_error");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    // Another user from the same address still signs in.
    await signUp(gw, "b@example.com", "b");
    expect((await call(gw, "POST", "/dashboard/api/session", { body: { email: "b@example.com", password: PASSWORD } })).status).toBe(200);
  });

  it("allows 30 failures per IP across users in 15 minutes, then answers 429", async () => {
    gw = await startGateway({});
    await signUp(gw, "z@example.com", "z");
    for (let i = 0; i < 30; i++) {
      const r = await call(gw, "POST", "/dashboard/api/session", { body: { email: `nobody${i}@example.com`, password: "wrong password" } });
      expect(r.status).toBe(401);
    }
    const blocked = await call(gw, "POST", "/dashboard/api/session", { body: { email: "z@example.com", password: PASSWORD } });
    expect(blocked.status).toBe(429);
    errorShape(blocked.json);
  });
});
