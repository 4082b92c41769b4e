/**
 * Codex asks every model for `reasoning.effort`; aliased to a model whose provider has no
 * reasoning switch (a local OpenAI-compatible server), the Responses request is served without
 * it and names it in X-Gateway-Ignored under compat openai, and stays a 400 under strict
 * (docs/responses.md, "Codex").
 */
import { afterAll, expect, test } from "vitest";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";

const fake = await startFakeUpstream(() => completion("done"));
const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await fake.close();
});

async function gatewayWith(compat: string) {
  const gw = await startGateway({
    server: { compat },
    providers: { local: { plugin: "openai-compatible", baseUrl: `${fake.url}/v1` } },
    models: [{ id: "local/llama3.2", endpoints: [{ provider: "local", model: "llama3.2" }] }],
    aliases: { "gpt-5.5": "local/llama3.2" },
  });
  gateways.push(gw);
  return { gw, key: await gw.createKey() };
}

const ask = (gw: TestGateway, key: string) =>
  fetch(`${gw.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-5.5", input: "Fix the failing test", reasoning: { effort: "medium", summary: "auto" } }),
  });

test("compat openai: served without reasoning_effort, named in X-Gateway-Ignored", async () => {
  const { gw, key } = await gatewayWith("openai");
  const res = await ask(gw, key);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-gateway-ignored")).toContain("reasoning.effort");
  expect(((await res.json()) as { status: string }).status).toBe("completed");
  const sent = fake.requests.at(-1)!.body as Record<string, unknown>;
  expect(sent.model).toBe("llama3.2");
  expect(sent).not.toHaveProperty("reasoning_effort");
});

test("compat strict: a 400 unsupported_parameter naming reasoning.effort, nothing sent upstream", async () => {
  const { gw, key } = await gatewayWith("strict");
  const before = fake.requests.length;
  const res = await ask(gw, key);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "unsupported_parameter" });
  expect(fake.requests.length).toBe(before);
});
