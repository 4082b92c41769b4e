/**
 * Behind a reverse proxy (docs/http.md "Behind a reverse proxy"): with `server.trustProxy`
 * naming the proxy, each client is throttled by its own address from X-Forwarded-For, not by
 * the proxy's; a client reaching the gateway directly cannot pick its address with that
 * header; and with `dashboard.url` set the Origin check holds when the proxy rewrites Host.
 * Clients are told apart by their loopback source address (127.0.0.2, 127.0.0.3, …).
 */
import { afterEach, describe, expect, it } from "vitest";
import { addUser } from "../src/operations/dashboard-users.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { PASSWORD, SETUP, tokenOf } from "./helpers/dashboard.js";
import { send, startReverseProxy, type ReverseProxy } from "./helpers/reverse-proxy.js";

const ALICE = "127.0.0.2";
const MALLORY = "127.0.0.3";

let gw: TestGateway | undefined;
let proxy: ReverseProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await gw?.close();
  gw = proxy = undefined;
});

/** A proxy on 127.0.0.1, the gateway behind it configured with `raw` (its public URL: the proxy's). */
async function behindProxy(raw: Record<string, any>): Promise<{ gw: TestGateway; proxy: ReverseProxy }> {
  proxy = await startReverseProxy();
  gw = await startGateway({ ...raw, dashboard: { url: proxy.url } });
  proxy.target = gw.url;
  return { gw, proxy };
}

const signIn = (p: ReverseProxy, from: string, email: string, password: string) =>
  send(from, `${p.url}/dashboard/api/session`, { method: "POST", headers: { origin: p.url }, body: { email, password } });

/** A dashboard user who opened their sign-in link through the proxy and set PASSWORD. */
async function userBehind(g: TestGateway, p: ReverseProxy, email: string) {
  const { link } = await addUser(g.store, { email, account: "a", admin: false }, p.url, Date.now(), SETUP);
  return send(ALICE, `${p.url}/dashboard/api/password`, { method: "POST", headers: { origin: p.url }, body: { token: tokenOf(link), password: PASSWORD } });
}

describe("behind a reverse proxy", () => {
  it("with dashboard.url set, sign-in passes the Origin check though the proxy rewrites Host", async () => {
    const { gw, proxy } = await behindProxy({ server: { trustProxy: true } });
    expect((await userBehind(gw, proxy, "a@example.com")).status).toBe(200);
    const ok = await signIn(proxy, ALICE, "a@example.com", PASSWORD);
    expect(ok.status).toBe(200);
    expect(ok.headers["set-cookie"]?.[0]).toMatch(/^gateway_session=/);
    // The check still refuses another site's page.
    const evil = await send(ALICE, `${proxy.url}/dashboard/api/session`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
      body: { email: "a@example.com", password: PASSWORD },
    });
    expect(evil.status).toBe(403);
    expect(evil.json.error.code).toBe("origin_mismatch");
  });

  it("one client's failed sign-ins do not lock another client out", async () => {
    const { gw, proxy } = await behindProxy({ server: { trustProxy: ["127.0.0.1"] } });
    expect((await userBehind(gw, proxy, "alice@example.com")).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await signIn(proxy, MALLORY, `nobody${i}@example.com`, "wrong password")).status).toBe(401);
    expect((await signIn(proxy, MALLORY, "alice@example.com", PASSWORD)).status).toBe(429);
    expect((await signIn(proxy, ALICE, "alice@example.com", PASSWORD)).status).toBe(200);
  }, 120_000); // 30 password checks, each a deliberate slow hash

  it("one client's flood of requests without a valid key does not 429 another client", async () => {
    const { proxy } = await behindProxy({ server: { trustProxy: 1 }, limits: { ip: { requests: 5, window: 60 } } });
    const chat = (from: string) =>
      send(from, `${proxy.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-mistyped" },
        body: { model: "x/y", messages: [{ role: "user", content: "hi" }] },
      });
    for (let i = 0; i < 5; i++) expect((await chat(MALLORY)).status).toBe(401);
    expect((await chat(MALLORY)).status).toBe(429);
    expect((await send(MALLORY, `${proxy.url}/v1/models`)).status).toBe(429);
    // Alice's own window: the mistyped key on the hot path, an anonymous small route, the dashboard API.
    expect((await chat(ALICE)).status).toBe(401);
    expect((await send(ALICE, `${proxy.url}/v1/models`)).status).toBe(401);
    const me = await send(ALICE, `${proxy.url}/dashboard/api/me`);
    expect(me.status).toBe(401);
    expect(me.headers["x-ratelimit-remaining"]).toBe("2");
  });

  it("ignores X-Forwarded-For from a client that is not a trusted proxy", async () => {
    gw = await startGateway({ server: { trustProxy: ["127.0.0.1"] }, limits: { ip: { requests: 3, window: 60 } } });
    const spoofed = (i: number) => send(MALLORY, `${gw!.url}/v1/models`, { headers: { "x-forwarded-for": `203.0.113.${i}` } });
    for (let i = 0; i < 3; i++) expect((await spoofed(i)).status).toBe(401);
    const blocked = await spoofed(3);
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.type).toBe("rate_limit_error");
  });
});
