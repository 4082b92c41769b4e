/**
 * The gateway the Gemini suites share (test/gemini.test.ts, test/gemini-errors.test.ts): a
 * Google-format and an OpenAI-format fake on one server (paths tell them apart), a native
 * Google model, an OpenAI model behind the alias `gemini-translated`, a reasoning model, and a local
 * server's model (no reasoning switch).
 */
import { usdToNano } from "../../src/core/money.js";
import { FAST_RETRY, useGateway } from "./gateway.js";
import { rows } from "./rows.js";

export const PRICES = { prompt: usdToNano("1"), completion: usdToNano("2"), cacheRead: usdToNano("0.25") };

const config = (fakeUrl: string) => ({
  server: { compat: "openai" },
  providers: {
    google: { baseUrl: fakeUrl, apiKey: "g-upstream-secret-1234" },
    openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-secret-0000" },
    ollama: { plugin: "openai-compatible", baseUrl: `${fakeUrl}/local/v1`, apiKey: "local-upstream-key-77" },
  },
  models: [
    {
      id: "google/gemini-2.5-flash",
      pricing: { prompt: "1", completion: "2", cache_read: "0.25" },
      max_output: 8192,
      endpoints: [{ provider: "google", model: "gemini-2.5-flash-up" }],
    },
    { id: "openai/gpt-4o-mini", pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
    {
      id: "acme/both",
      pricing: { prompt: "1", completion: "2" },
      order: "fixed",
      endpoints: [
        { provider: "google", model: "gemini-first" },
        { provider: "openai", model: "gpt-second" },
      ],
    },
    { id: "acme/llama", pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "ollama", model: "llama" }] },
    {
      id: "acme/thinker",
      pricing: { prompt: "1", completion: "2" },
      capabilities: { reasoning: true },
      endpoints: [{ provider: "openai", model: "o-thinker" }],
    },
  ],
  retry: FAST_RETRY,
  aliases: { "gemini-translated": "openai/gpt-4o-mini" },
});

interface GenOptions {
  stream?: boolean;
  headers?: Record<string, string>;
  query?: string;
}

/** Registers the suite's hooks; `gen` posts to a model's generateContent (or stream) with the harness key in x-goog-api-key. */
export function geminiSuite() {
  const h = useGateway(config);
  const gen = (model: string, body: unknown, opts: GenOptions = {}) =>
    fetch(`${h.gw.url}/v1beta/models/${model}:${opts.stream ? "streamGenerateContent?alt=sse" : "generateContent"}${opts.query ?? ""}`, {
      method: "POST",
      headers: { "x-goog-api-key": h.key, "content-type": "application/json", ...opts.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const ledger = async (res: Response) =>
    (await rows<Record<string, any>>(h.gw.db, "SELECT * FROM ledger WHERE request_id = ?", res.headers.get("x-request-id")))[0]!;
  return { h, gen, ledger };
}

/**
 * A chat and an embedding model on a Google-format and on an OpenAI-format provider, each $1 per
 * 1M prompt tokens (`googleEmbed`: the Google embedding model's upstream name).
 */
export function googleAndOpenaiModels(googleEmbed: string) {
  const model = (id: string, provider: string, upstream: string, embeddings = false) => ({
    id,
    ...(embeddings ? { kind: "embeddings" } : {}),
    pricing: { prompt: "1", completion: embeddings ? "0" : "2" },
    endpoints: [{ provider, model: upstream }],
  });
  return [
    model("google/gemini-2.5-flash", "google", "gemini-2.5-flash"),
    model("openai/gpt-4o-mini", "openai", "gpt-4o-mini"),
    model("google/gemini-embedding-001", "google", googleEmbed, true),
    model("openai/text-embedding-3-small", "openai", "te3s", true),
  ];
}

export const json = (res: Response) => res.json() as Promise<any>;

/** The `data:` events of an SSE body, parsed. */
export const events = (text: string) =>
  text
    .split("\n\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => JSON.parse(e.slice(6)));
