/** docs/http.md "Authentication": the 401 rules, the key lifecycle, and per-IP throttling of keyless requests. */
import { connect } from "node:net";
import { describe, expect, test } from "vitest";
import { openaiConfig, startGateway, useGateway } from "./helpers/gateway.js";
import { bearer, expectError } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const h = useGateway((fakeUrl) => openaiConfig(fakeUrl, { limits: { ip: { requests: 1000, window: 60 } } }), {
  credits: "10",
  fallback: () => completion("ok"),
});

const models = (headers: Record<string, string>) => fetch(`${h.gw.url}/v1/models`, { headers });

describe("401 invalid_api_key", () => {
  test.each([
    ["missing header", {}],
    ["wrong scheme", { authorization: "Basic dXNlcjpwYXNz" }],
    ["Bearer without a space-separated key", { authorization: "Bearersk-abc" }],
    ["unknown key", bearer("sk-" + "a".repeat(48))],
    ["not an sk- key", bearer("hello")],
  ])("%s", async (_name, headers) => {
    await expectError(await models(headers as Record<string, string>), 401, "authentication_error", "invalid_api_key");
  });

  test("a revoked key is refused from the next request on (revoked by the CLI's connection)", async () => {
    const key = await h.gw.createKey({ name: "to-revoke" });
    expect((await models(bearer(key))).status).toBe(200);
    // Another connection (as `gateway keys revoke` would be) commits the revocation.
    const { openStore } = await import("../src/store/open.js");
    const cli = await openStore(h.gw.db);
    await cli.revokeKey((await cli.findKey("to-revoke"))!.id, Date.now());
    await cli.close();
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 2000) {
      status = (await models(bearer(key))).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("an expired key is refused", async () => {
    const key = await h.gw.createKey({ expiresAt: Date.now() + 300 });
    expect((await models(bearer(key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 350));
    await expectError(await models(bearer(key)), 401, "authentication_error", "invalid_api_key");
  });

  test("the error never echoes the presented key", async () => {
    const bogus = "sk-" + "Z".repeat(48);
    const res = await models(bearer(bogus));
    expect(await res.text()).not.toContain(bogus);
  });
});

describe("public endpoints and keyless throttling", () => {
  test("health and openapi need no key", async () => {
    expect((await fetch(`${h.gw.url}/v1/health/providers`)).status).toBe(200);
    const doc = (await (await fetch(`${h.gw.url}/v1/openapi.json`)).json()) as { openapi: string; info: { version: string } };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
  });

  test("requests without a valid key are limited per client IP (429 instead of 401 once over)", async () => {
    const tight = await startGateway(openaiConfig(h.fake.url, { limits: { ip: { requests: 3, window: 60 } } }));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${tight.url}/v1/models`)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const res = await fetch(`${tight.url}/v1/health/providers`);
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe(res.headers.get("x-ratelimit-reset"));
    } finally {
      await tight.close();
    }
  });

  test("the key tier counts /v1/models too and reports the key's limit", async () => {
    const key = await h.gw.createKey({ rpm: 5 });
    const res = await models(bearer(key));
    expect(res.headers.get("x-ratelimit-limit")).toBe("5");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
  });
});

describe("where each kind of client puts its key (docs/http.md, Authentication)", () => {
  const chat = (headers: Record<string, string>, query = "") =>
    fetch(`${h.gw.url}/v1/chat/completions${query}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });

  test.each([
    ["x-api-key (Anthropic's clients)", (k: string) => ({ headers: { "x-api-key": k }, query: "" })],
    ["x-goog-api-key (Google's clients)", (k: string) => ({ headers: { "x-goog-api-key": k }, query: "" })],
    ["?key= (Google's clients)", (k: string) => ({ headers: {}, query: `?key=${k}` })],
  ])("%s works on the model routes and the small routes alike", async (_name, place) => {
    const { headers, query } = place(h.key);
    expect((await chat(headers, query)).status).toBe(200);
    expect((await fetch(`${h.gw.url}/v1/models${query}`, { headers })).status).toBe(200);
  });

  test.each([
    ["x-api-key", (k: string) => ({ headers: { "x-api-key": k }, query: "" })],
    ["?key=", (k: string) => ({ headers: {}, query: `?key=${k}` })],
  ])("a wrong key in %s is a 401, not a fall-through to no key", async (_name, place) => {
    const { headers, query } = place("sk-" + "b".repeat(48));
    await expectError(await chat(headers, query), 401, "authentication_error", "invalid_api_key");
  });

  test("Authorization wins when several are sent: a bad Bearer is refused even beside a good x-api-key", async () => {
    await expectError(await chat({ authorization: "Bearer sk-nope", "x-api-key": h.key }), 401, "authentication_error", "invalid_api_key");
  });

  /** GET /v1/models with these header lines, byte for byte and in this order (fetch would trim and reorder them). */
  function rawGet(lines: string[], query = ""): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(h.gw.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.write([`GET /v1/models${query} HTTP/1.1`, `host: ${hostname}:${port}`, "connection: close", ...lines, "", ""].join("\r\n")),
      );
      let raw = "";
      socket.setEncoding("utf8").on("data", (d: string) => (raw += d));
      socket.on("end", () => resolve({ status: Number(raw.slice(9, 12)), body: raw.slice(raw.indexOf("\r\n\r\n") + 4) }));
      socket.on("error", reject);
    });
  }

  // docs/http.md "Authentication": an Authorization header that carries no key counts as not sent,
  // whether it is empty or `Bearer ` with nothing after it, before or after the other header.
  const EMPTY = [
    ["empty", "authorization:"],
    ["Bearer and a space", "authorization: Bearer "],
    ["Bearer and spaces", "Authorization: bearer    "],
  ] as const;
  test.each(EMPTY)(
    "an Authorization header that carries no key (%s) falls through to x-api-key, x-goog-api-key and ?key=, in either order",
    async (_name, line) => {
      for (const other of [`x-api-key: ${h.key}`, `x-goog-api-key: ${h.key}`]) {
        expect((await rawGet([line, other])).status, `${line} then ${other}`).toBe(200);
        expect((await rawGet([other, line])).status, `${other} then ${line}`).toBe(200);
      }
      expect((await rawGet([line], `?key=${h.key}`)).status).toBe(200);
    },
  );

  test.each(EMPTY)("an Authorization header that carries no key (%s) and nothing else is the 401 saying no key was sent", async (_name, line) => {
    const r = await rawGet([line]);
    expect(r.status).toBe(401);
    expect(r.body).toContain('"code":"invalid_api_key"');
    expect(r.body).toContain("No API key was sent");
  });
});
