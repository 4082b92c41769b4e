/**
 * The dashboard API over HTTP on loopback (docs/dashboard.md): an account holder reaches only
 * their account, an admin every account; revocations take effect at once; and no page or
 * answer ever carries a full key after its creation, a password hash, a session token or a
 * BYOK key. Plus the static pages' CSP and cache headers and the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { call, signUp } from "./helpers/dashboard.js";
import { completion } from "./helpers/openai-wire.js";

const BYOK_KEY = "sk-byok-secret-value-9876";

let up: FakeUpstream;
let gw: TestGateway;
let alice: string;
let bob: string;
let admin: string;

beforeAll(async () => {
  up = await startFakeUpstream(() => completion("hi", { prompt_tokens: 10, completion_tokens: 5 }));
  gw = await startGateway(openaiConfig(up.url));
  alice = (await signUp(gw, "alice@example.com", "acme")).cookie;
  bob = (await signUp(gw, "bob@example.com", "globex")).cookie;
  admin = (await signUp(gw, "root@example.com", "ops", true)).cookie;
  await gw.addCredits("5", "acme");
});
afterAll(async () => {
  await gw.close();
  await up.close();
});

describe("accounts are isolated", () => {
  it("a holder sees and changes only their own account; another account reads as unknown", async () => {
    const created = await call(gw, "POST", "/dashboard/api/keys", {
      cookie: alice,
      body: { name: "alice-key", rpm: 30, expires_in_days: 7, account: "globex" },
    });
    expect(created.status).toBe(404); // naming someone else's account in a body is refused too
    const ok = await call(gw, "POST", "/dashboard/api/keys", { cookie: alice, body: { name: "alice-key", rpm: 30, expires_in_days: 7 } });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ name: "alice-key", account: "acme", state: "active", rpm: 30 });
    expect(ok.json.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);

    const bobKeys = await call(gw, "GET", "/dashboard/api/keys", { cookie: bob });
    expect(bobKeys.json).toEqual([]);
    for (const path of ["/keys", "/usage", "/credits", "/byok", "/models"]) {
      const r = await call(gw, "GET", `/dashboard/api${path}?account=acme`, { cookie: bob });
      expect(r.status, path).toBe(404);
      expect(r.json.error.code).toBe("account_not_found");
    }
    const steal = await call(gw, "POST", `/dashboard/api/keys/${ok.json.id}/revoke`, { cookie: bob });
    expect(steal.status).toBe(404);
    expect((await gw.store.findKey(ok.json.id))!.revokedAt).toBeNull();
    const credit = await call(gw, "POST", "/dashboard/api/credits", { cookie: bob, body: { account: "globex", amount: "100" } });
    expect(credit.status).toBe(403);
    expect(credit.json.error.code).toBe("admin_only");
    expect((await call(gw, "GET", "/dashboard/api/accounts", { cookie: bob })).json.map((a: any) => a.id)).toEqual(["globex"]);
  });

  it("an admin sees every account and adds credits, exactly", async () => {
    const keys = await call(gw, "GET", "/dashboard/api/keys?account=acme", { cookie: admin });
    expect(keys.json.map((k: any) => k.name)).toContain("alice-key");
    const accounts = await call(gw, "GET", "/dashboard/api/accounts", { cookie: admin });
    expect(accounts.json.map((a: any) => a.id)).toEqual(expect.arrayContaining(["acme", "globex", "ops"]));
    expect(accounts.json.find((a: any) => a.id === "acme")).toMatchObject({ balance: "5", spend: expect.any(String), keys: expect.any(Number) });
    const add = await call(gw, "POST", "/dashboard/api/credits", { cookie: admin, body: { account: "globex", amount: "0.000000001" } });
    expect(add.json).toEqual({ account: "globex", added: "0.000000001", balance: "0.000000001" });
    const history = await call(gw, "GET", "/dashboard/api/credits", { cookie: bob });
    expect(history.json).toMatchObject({
      account: "globex",
      balance: "0.000000001",
      history: [{ amount: "0.000000001", kind: "grant", by: "root@example.com" }],
    });
    const listed = await call(gw, "GET", "/dashboard/api/accounts", { cookie: admin });
    expect(listed.json.find((a: any) => a.id === "globex")).toMatchObject({ balance: "0.000000001" }); // the same listing as `gateway accounts list`
    const typo = await call(gw, "POST", "/dashboard/api/credits", { cookie: admin, body: { account: "globexx", amount: "1" } });
    expect(typo.status).toBe(404);
    const bad = await call(gw, "POST", "/dashboard/api/credits", { cookie: admin, body: { account: "globex", amount: "1.5e3" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/^amount: /);
  });

  it("a revoked key is refused on /v1 at once, and the revocation shows in the list", async () => {
    const created = await call(gw, "POST", "/dashboard/api/keys", { cookie: alice, body: { name: "short-lived" } });
    const client = gw.client(created.json.key);
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    const revoked = await call(gw, "POST", `/dashboard/api/keys/${created.json.id}/revoke`, { cookie: alice });
    expect(revoked.json.state).toBe("revoked");
    await expect(client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
      status: 401,
    });
    const usage = await call(gw, "GET", "/dashboard/api/usage", { cookie: alice });
    expect(usage.json.recent[0]).toMatchObject({
      model: "openai/gpt-4o-mini",
      provider: "openai",
      prompt_tokens: 10,
      completion_tokens: 5,
      status: 200,
      key_name: "short-lived",
    });
    expect(usage.json.daily).toHaveLength(30);
    expect(usage.json.daily.at(-1).requests).toBeGreaterThanOrEqual(1);
    expect((await call(gw, "GET", "/dashboard/api/usage", { cookie: bob })).json.recent).toEqual([]);
  });
});

describe("secrets never leave", () => {
  it("no answer or page carries a full key after creation, a password hash, a session token or a BYOK key", async () => {
    const created = await call(gw, "POST", "/dashboard/api/keys", { cookie: alice, body: { name: "secret-check" } });
    const fullKey: string = created.json.key;
    const saved = await call(gw, "PUT", "/dashboard/api/byok/openai", { cookie: alice, body: { key: BYOK_KEY } });
    expect(saved.json).toMatchObject({ provider: "openai", masked: "…9876" });
    // Stored with the secret the server reads BYOK keys with: the next request goes out with it, at once.
    await gw.client(fullKey).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(up.requests.at(-1)!.headers.authorization).toBe(`Bearer ${BYOK_KEY}`);
    const hashes = (await gw.store.listUsers()).map((u) => u.passwordHash!);
    const sessions = [alice, bob, admin].map((c) => c.split("=")[1]!);
    const secrets = [fullKey, fullKey.slice(3, 20), BYOK_KEY, "byok-secret", ...hashes, ...hashes.map((h) => h.split("$")[5]!), ...sessions];

    const bodies: string[] = [saved.text];
    for (const cookie of [alice, admin]) {
      for (const path of [
        "/me",
        "/keys?account=acme",
        "/usage?account=acme",
        "/credits?account=acme",
        "/byok?account=acme",
        "/models?account=acme",
        "/health",
        "/accounts",
        "/openapi.json",
      ]) {
        const r = await call(gw, "GET", `/dashboard/api${path}`, { cookie });
        expect(r.status, path).toBe(200);
        bodies.push(r.text, JSON.stringify([...r.headers]));
      }
    }
    const signIn = await call(gw, "POST", "/dashboard/api/session", { body: { email: "alice@example.com", password: "correct horse battery" } });
    bodies.push(signIn.text);
    const page = await call(gw, "GET", "/dashboard/");
    expect(page.status).toBe(200);
    bodies.push(page.text);
    for (const asset of page.text.matchAll(/\/dashboard\/assets\/[^"]+/g)) bodies.push((await call(gw, "GET", asset[0])).text);
    expect(bodies.length).toBeGreaterThan(20);
    for (const body of bodies) for (const secret of secrets) expect(body.includes(secret), `leaked ${secret.slice(0, 6)}…`).toBe(false);
    expect((await call(gw, "DELETE", "/dashboard/api/byok/openai", { cookie: alice })).json).toMatchObject({ removed: true });
  });
});

describe("pages and documents", () => {
  it("serves the built pages with a strict CSP, hashed assets cached for good, index never", async () => {
    const page = await call(gw, "GET", "/dashboard/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self'; style-src 'self'/);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.text).not.toMatch(/<script>|<style|style=|https?:\/\//); // no inline code, no CDN
    const asset = page.text.match(/\/dashboard\/assets\/[^"]+\.js/)![0];
    const js = await call(gw, "GET", asset);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await call(gw, "GET", "/dashboard")).headers.get("location")).toBe("/dashboard/");
    expect((await call(gw, "GET", "/dashboard/../package.json")).status).toBe(404);
    expect((await call(gw, "GET", "/dashboard/assets/nope.js")).status).toBe(404);
  });

  it("documents the API at /dashboard/api/openapi.json and answers errors in docs/http.md's shape", async () => {
    const doc = await call(gw, "GET", "/dashboard/api/openapi.json");
    expect(doc.json.openapi).toBe("3.1.0");
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(["/session", "/password", "/keys", "/keys/{id}/revoke", "/usage", "/credits", "/byok/{provider}"]),
    );
    expect(doc.json.components.schemas.CreateKeyBody.required).toEqual(["name"]);
    const bad = await call(gw, "POST", "/dashboard/api/keys", { cookie: alice, body: { name: "", colour: "red" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual({
      message: expect.stringMatching(/^(name|colour): /),
      type: "invalid_request_error",
      code: null,
      request_id: bad.headers.get("x-request-id"),
    });
    const anon = await call(gw, "GET", "/dashboard/api/keys");
    expect(anon.status).toBe(401);
    expect(anon.json.error.code).toBe("session_required");
    expect((await call(gw, "GET", "/dashboard/api/nothing", { cookie: alice })).status).toBe(404);
  });

  it("is off with dashboard.enabled: false", async () => {
    const off = await startGateway({ dashboard: { enabled: false } });
    try {
      expect((await call(off, "GET", "/dashboard/")).status).toBe(404);
      expect((await call(off, "GET", "/dashboard/api/me")).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
