/**
 * Two OpenAI-compatible fakes, `alpha` and `beta`, and models priced apart (docs/routing.md): the
 * fallback, provider-preference and cost suites' shared shape. `acme/a` is served by alpha at
 * $1 / $2 per 1M, `acme/b` by beta at $3 / $4, `acme/f` by alpha with `fallbacks: [acme/b]`,
 * and `acme/both` by both, alpha at its own $5 / $5 and beta at $1 / $1.
 */
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./fake-upstream.js";
import { startGateway, type TestGateway } from "./gateway.js";
import { bearer } from "./http.js";
import { rows } from "./rows.js";
import { completion, stream } from "./openai-wire.js";

export interface TwoModels {
  gw: TestGateway;
  alpha: FakeUpstream;
  beta: FakeUpstream;
  close(): Promise<void>;
}

/** Answers as an OpenAI upstream would, streamed when asked to; 12 prompt and 5 completion tokens. */
export const answer =
  (text: string) =>
  (req: Recorded): Reply =>
    req.body?.stream ? stream([text.slice(0, 5), text.slice(5)]) : completion(text);

export async function startTwoModels(extra: Record<string, unknown> = {}): Promise<TwoModels> {
  const alpha = await startFakeUpstream(answer("from alpha"));
  const beta = await startFakeUpstream(answer("from beta"));
  const gw = await startGateway({
    providers: {
      alpha: { plugin: "openai-compatible", baseUrl: `${alpha.url}/v1`, apiKey: "sk-alpha-upstream-secret-1111" },
      beta: { plugin: "openai-compatible", baseUrl: `${beta.url}/v1`, apiKey: "sk-beta-upstream-secret-2222" },
    },
    models: [
      { id: "acme/a", pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "alpha", model: "a-model" }] },
      { id: "acme/b", pricing: { prompt: "3", completion: "4" }, max_output: 1000, endpoints: [{ provider: "beta", model: "b-model" }] },
      { id: "acme/f", pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "alpha", model: "f-model" }] },
      {
        id: "acme/both",
        pricing: { prompt: "2", completion: "2" },
        max_output: 1000,
        endpoints: [
          { provider: "alpha", model: "both-a", pricing: { prompt: "5", completion: "5" } },
          { provider: "beta", model: "both-b", pricing: { prompt: "1", completion: "1" } },
        ],
      },
    ],
    fallbacks: { "acme/f": ["acme/b"] },
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 500 },
    health: { failureThreshold: 1000, cooldown: 1000 },
    ...extra,
  });
  return {
    gw,
    alpha,
    beta,
    async close() {
      await gw.close();
      await alpha.close();
      await beta.close();
    },
  };
}

/** A key of its own account holding `usd`, so each test reads its own balance. */
export async function funded(s: TwoModels, account: string, usd = "1"): Promise<string> {
  const key = await s.gw.createKey({ account });
  await s.gw.addCredits(usd, account);
  return key;
}

export const chat = (s: TwoModels, key: string, body: Record<string, unknown>) =>
  fetch(`${s.gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
  });

export interface LedgerRow {
  model: string;
  provider: string | null;
  cost: number;
  status: string;
  attempts: number;
}

export const ledgerOf = (s: TwoModels, account: string) =>
  rows<LedgerRow>(s.gw.db, "SELECT model, provider, cost, status, attempts FROM ledger WHERE account = ? ORDER BY id", account);

export const balanceOf = async (s: TwoModels, account: string) => Number((await s.gw.store.balance(account)) ?? 0n);

/** The events of an SSE answer, `[DONE]` included, each parsed when it is JSON. */
export async function events(res: Response): Promise<unknown[]> {
  return (await res.text())
    .split("\n\n")
    .filter(Boolean)
    .map((e) => e.replace(/^(event: [^\n]*\n)?data: /, ""))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}
