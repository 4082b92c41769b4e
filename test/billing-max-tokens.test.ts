/**
 * The 402 of a hold the money left cannot cover names the largest max_tokens it can pay for
 * (docs/billing.md "402"), exactly: that many is admitted, one more is refused. For the balance
 * and for a key's budget, on /v1/chat/completions, /v1/responses (max_output_tokens) and
 * /v1/messages, and when the request set no max_tokens (the model's output limit is what it
 * asks for).
 *
 * Prices $1 / $2 per 1M tokens: 1,000 and 2,000 nano-USD a token. The prompt "hi" is bounded
 * at 34 tokens (billing/bill.ts promptUpperBound: 16 + 16 + 2 bytes), so $0.05 pays for
 * (50,000,000 − 34,000) / 2,000 = 24,983 output tokens and a $0.01 budget for 4,983.
 */
import { describe, expect, test } from "vitest";
import { useGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";

const h = useGateway(
  (fakeUrl) => ({
    server: { compat: "openai" },
    providers: { local: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-402" } },
    models: [{ id: "test/big", pricing: { prompt: "1", completion: "2" }, max_output: 128000, endpoints: [{ provider: "local", model: "big-up" }] }],
  }),
  { account: "poor", credits: "0.05", fallback: () => completion("ok", { prompt_tokens: 1, completion_tokens: 1 }) },
);

const chat = (key: string, max?: number) =>
  h.post({ model: "test/big", messages: [{ role: "user", content: "hi" }], ...(max !== undefined && { max_tokens: max }) }, { authorization: `Bearer ${key}` });

async function refusal(res: Response): Promise<string> {
  const body = (await res.json()) as { error: { type: string; message: string } };
  expect(res.status, JSON.stringify(body)).toBe(402);
  expect(body.error.type).toBe("insufficient_credits");
  return body.error.message;
}

/** A fresh account with `usd` of credits (each test spends nothing: refused or one cheap answer). */
async function account(name: string, usd: string): Promise<string> {
  const key = await h.gw.createKey({ account: name });
  await h.gw.addCredits(usd, name);
  return key;
}

describe("the 402 names the largest affordable max_tokens", () => {
  test("balance, chat: 128000 asked, 24983 affordable; 24983 admitted, 24984 refused", async () => {
    const key = await account("chat-balance", "0.05");
    const message = await refusal(await chat(key, 128000));
    expect(message).toBe(
      "This request may cost up to $0.256034 and the balance is $0.05: it asks for up to 128000 tokens (max_tokens), but the balance can pay for at most 24983. Add funds (gateway credits add), lower max_tokens, or set a BYOK key for this provider.",
    );
    expect(await refusal(await chat(key, 24984))).toContain("can pay for at most 24983.");
    expect(h.fake.requests).toHaveLength(0);
    const ok = await chat(key, 24983);
    expect(ok.status).toBe(200);
  });

  test("without max_tokens the model's output limit is what the request asks for", async () => {
    const key = await account("chat-default", "0.05");
    expect(await refusal(await chat(key))).toContain(
      "it asks for up to 128000 tokens (the model's output limit; max_tokens was not set), but the balance can pay for at most 24983.",
    );
  });

  test("a key's budget: what is left of it decides the number", async () => {
    await h.gw.addCredits("10", "budgeted");
    const key = await h.gw.createKey({ account: "budgeted" });
    const id = (await h.gw.store.listKeys("budgeted")).at(-1)!.id;
    await h.gw.store.updateKey(id, { budget: 10_000_000n, budgetPeriod: "total" }, Date.now());
    const message = await refusal(await chat(key, 128000));
    expect(message).toContain(
      `this API key's budget has $0.01 left of $0.01 in total ($0 spent): it asks for up to 128000 tokens (max_tokens), but the budget can pay for at most 4983. Raise the budget (gateway keys update ${id} --budget <usd>) or lower max_tokens.`,
    );
    expect((await chat(key, 4984)).status).toBe(402);
    expect((await chat(key, 4983)).status).toBe(200);
  });

  test("Responses: max_output_tokens is the number asked for; the same arithmetic", async () => {
    const key = await account("responses-balance", "0.05");
    const ask = (max: number) =>
      fetch(`${h.gw.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "test/big", input: "hi", max_output_tokens: max, store: false }),
      });
    expect(await refusal(await ask(128000))).toContain("it asks for up to 128000 tokens (max_tokens), but the balance can pay for at most 24983.");
    expect((await ask(24984)).status).toBe(402);
    expect((await ask(24983)).status).toBe(200);
  });

  test("/v1/messages (Claude Code asks for max_tokens 128000) gets the same number, in Anthropic's error envelope", async () => {
    const key = await account("messages-balance", "0.05");
    const ask = (max: number) =>
      fetch(`${h.gw.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "test/big", max_tokens: max, messages: [{ role: "user", content: "hi" }] }),
      });
    const res = await ask(128000);
    const body = (await res.json()) as { type: string; error: { message: string } };
    expect(res.status, JSON.stringify(body)).toBe(402);
    expect(body.type).toBe("error");
    const most = Number(/can pay for at most (\d+)\./.exec(body.error.message)?.[1]);
    expect(body.error.message).toContain("it asks for up to 128000 tokens (max_tokens), but the balance can pay for at most");
    expect((await ask(most + 1)).status).toBe(402);
    expect((await ask(most)).status).toBe(200);
  });

  test("a prompt the money cannot cover at all says so", async () => {
    const key = await account("tiny", "0.00001");
    expect(await refusal(await chat(key, 10))).toContain("it asks for up to 10 tokens (max_tokens), and the balance does not cover even its prompt.");
  });
});
