/**
 * Usage the gateway counts itself is bounded by what the request could have produced
 * (docs/limits.md, "Usage the gateway counts is bounded by the request"): a hostile stream that
 * sends far more than `max_tokens` without usage is billed at most the bound. Reported usage is
 * the provider's bill, cut only at the sanity ceiling: an upstream that reports 10^15 prompt
 * tokens for a two-word request is billed 8,000,000. Either way the ledger row keeps the count
 * before the bound and the request's log line names it (`reported_usage`).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { completion, stream } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";

const MODEL = "acme/chat";
let fake: FakeUpstream;
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startGateway({
    providers: { acme: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-upstream-capped" } },
    models: [
      { id: MODEL, pricing: { prompt: "1", completion: "2" }, context_length: 200_000, max_output: 1000, endpoints: [{ provider: "acme", model: "m" }] },
    ],
  });
  key = await gw.createKey();
  await gw.addCredits("10");
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const hi = [{ role: "user", content: "hi" }];

async function ledgerOf(res: Response) {
  await res.text();
  const id = res.headers.get("x-request-id")!;
  const [row] = await rows<{
    prompt_tokens: number;
    completion_tokens: number;
    cost: number;
    reported_prompt_tokens: number | null;
    reported_completion_tokens: number | null;
  }>(gw.db, "SELECT prompt_tokens, completion_tokens, cost, reported_prompt_tokens, reported_completion_tokens FROM ledger WHERE request_id = ?", id);
  return { id, ...row! };
}

test("counted usage is billed at most what the request could produce; reported usage up to the ceiling; both marked", async () => {
  // 30,000 words and no usage: the gateway estimates them itself.
  const flood = Array.from({ length: 5000 }, () => "lorem ipsum dolor sit amet ");
  fake.queue(stream(flood, undefined, { noUsage: true }), stream(flood, undefined, { noUsage: true }));
  const limited = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi, stream: true, max_tokens: 50 }, bearer(key)));
  expect(limited.completion_tokens).toBe(50);
  expect(limited.reported_completion_tokens).toBeGreaterThan(25_000); // what the gateway counted, kept beside the bound
  const unlimited = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi, stream: true }, bearer(key)));
  expect(unlimited.completion_tokens).toBe(1000); // the model's output limit: what was asked for
  expect(unlimited.cost).toBeLessThanOrEqual(unlimited.prompt_tokens * 1000 + 1000 * 2000);

  // 10^15 prompt tokens reported for "hi": the sanity ceiling, 4 x 2,000,000, not the request's bytes.
  fake.queue(completion("ok", { prompt_tokens: 1e15, completion_tokens: 5 }));
  const huge = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi }, bearer(key)));
  expect(huge).toMatchObject({ prompt_tokens: 8_000_000, completion_tokens: 5, reported_prompt_tokens: 1e15, reported_completion_tokens: 5 });

  // An honest answer is billed as reported, and not marked.
  fake.queue(completion("ok", { prompt_tokens: 9, completion_tokens: 1 }));
  const honest = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi }, bearer(key)));
  expect(honest).toMatchObject({ prompt_tokens: 9, completion_tokens: 1, reported_prompt_tokens: null, reported_completion_tokens: null });

  await gw.close(); // the log is complete once the gateway stopped
  const lines = readFileSync(gw.logFile!, "utf8")
    .split("\n")
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as { req_id: string; reported_usage?: { prompt_tokens: number; completion_tokens: number } });
  const reported = (id: string) => lines.find((l) => l.req_id === id)?.reported_usage;
  expect(reported(huge.id)).toEqual({ prompt_tokens: 1e15, completion_tokens: 5 });
  expect(reported(limited.id)).toEqual({ prompt_tokens: limited.reported_prompt_tokens, completion_tokens: limited.reported_completion_tokens });
  expect(reported(unlimited.id)?.completion_tokens).toBeGreaterThan(1000);
  expect(reported(honest.id)).toBeUndefined();
}, 30_000);
