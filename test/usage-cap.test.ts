/**
 * Usage is bounded by what the request could have produced (docs/limits.md, "Usage is bounded
 * by the request"): a hostile stream that sends far more than `max_tokens` without usage, or
 * an upstream that reports a huge prompt for a two-word request, is billed at most the bound,
 * and the request's log line says `usage_capped`.
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
  const [row] = await rows<{ prompt_tokens: number; completion_tokens: number; cost: number }>(
    gw.db,
    "SELECT prompt_tokens, completion_tokens, cost FROM ledger WHERE request_id = ?",
    id,
  );
  return { id, ...row! };
}

test("estimated and reported usage are billed at most what the request could produce, and marked", async () => {
  // 30,000 words and no usage: the gateway estimates them itself.
  const flood = Array.from({ length: 5000 }, () => "lorem ipsum dolor sit amet ");
  fake.queue(stream(flood, undefined, { noUsage: true }), stream(flood, undefined, { noUsage: true }));
  const limited = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi, stream: true, max_tokens: 50 }, bearer(key)));
  expect(limited.completion_tokens).toBe(50);
  const unlimited = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi, stream: true }, bearer(key)));
  expect(unlimited.completion_tokens).toBe(1000); // the model's output limit
  expect(unlimited.cost).toBeLessThanOrEqual(unlimited.prompt_tokens * 1000 + 1000 * 2000);

  // 10^15 prompt tokens reported for "hi": at most its bytes, the template's overhead and what a provider may add (2 + 32 + 4,096).
  fake.queue(completion("ok", { prompt_tokens: 1e15, completion_tokens: 5 }));
  const huge = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi }, bearer(key)));
  expect(huge.prompt_tokens).toBe(4130);
  expect(huge.completion_tokens).toBe(5);

  // An honest answer is billed as reported, and not marked.
  fake.queue(completion("ok", { prompt_tokens: 9, completion_tokens: 1 }));
  const honest = await ledgerOf(await post(gw.url, "/v1/chat/completions", { model: MODEL, messages: hi }, bearer(key)));
  expect(honest).toMatchObject({ prompt_tokens: 9, completion_tokens: 1 });

  await gw.close(); // the log is complete once the gateway stopped
  const lines = readFileSync(gw.logFile!, "utf8")
    .split("\n")
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as { req_id: string; usage_capped?: boolean });
  const capped = (id: string) => lines.find((l) => l.req_id === id)?.usage_capped;
  expect([limited.id, unlimited.id, huge.id].map(capped)).toEqual([true, true, true]);
  expect(capped(honest.id)).toBeUndefined();
}, 30_000);
