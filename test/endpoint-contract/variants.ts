/**
 * The five model endpoints as the endpoint contract suite (contract.test.ts) drives them, each
 * JSON and streamed, native and translated: the plugin its two fake upstreams speak (`primary`
 * then `secondary`, fixed order, for failover), the request a client sends, and the upstream's
 * answers in that plugin's wire format (a whole one, and for streams one cut after its first
 * text). Like the Store's contract suite (test/store/), one list of cases runs over all of them.
 */
import type { Reply } from "../helpers/fake-upstream.js";
import { completion, stream } from "../helpers/openai-wire.js";
import { openaiEmbeddingReply } from "../helpers/embeddings-wire.js";
import { messageItem, responsesAnswer, responsesStream } from "../helpers/responses-wire.js";

export const MODEL = "acme/contract";
const USAGE = { prompt_tokens: 10, completion_tokens: 5 };

export interface Variant {
  name: string;
  /** The ledger's endpoint column and the metrics' route label. */
  endpoint: string;
  route: string;
  plugin: string;
  /** The fake's base URL as the plugin's config wants it. */
  baseUrl(fake: string): string;
  embeddings?: boolean;
  stream: boolean;
  request(): { path: string; body: unknown; headers?: Record<string, string> };
  ok(): Reply;
  /** A stream that delivers text, then breaks (streams only). */
  cut?(): Reply;
}

const openaiBase = (fake: string) => `${fake}/v1`;

const chat = (stream: boolean) => ({ path: "/v1/chat/completions", body: { model: MODEL, messages: [{ role: "user", content: "Hello" }], stream } });
const responses = (stream: boolean) => ({ path: "/v1/responses", body: { model: MODEL, input: "Hello", stream } });
const messages = (stream: boolean) => ({
  path: "/v1/messages",
  body: { model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Hello" }], stream },
  headers: { "anthropic-version": "2023-06-01" },
});
const gemini = (stream: boolean) => ({
  path: `/v1beta/models/${MODEL}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
  body: { contents: [{ role: "user", parts: [{ text: "Hello" }] }] },
});

/** The translated path of every endpoint: an OpenAI-format provider without a native form (openai-compatible). */
const translated = (
  name: string,
  endpoint: string,
  route: string,
  request: (s: boolean) => Variant["request"] extends () => infer R ? R : never,
): Variant[] => [
  {
    name: `${name} JSON translated`,
    endpoint,
    route,
    plugin: "openai-compatible",
    baseUrl: openaiBase,
    stream: false,
    request: () => request(false),
    ok: () => completion("Hi there", USAGE),
  },
  {
    name: `${name} stream translated`,
    endpoint,
    route,
    plugin: "openai-compatible",
    baseUrl: openaiBase,
    stream: true,
    request: () => request(true),
    ok: () => stream(["Hi ", "there"], USAGE),
    cut: () => stream(["partial ", "answer"], USAGE, { cut: true, delayMs: 20 }),
  },
];

const anthropicMessage = {
  id: "msg_up",
  type: "message",
  role: "assistant",
  model: "claude-up",
  content: [{ type: "text", text: "Hi there" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 },
};

function anthropicEvents(cut: boolean): Reply {
  const e = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  const start = e("message_start", { message: { ...anthropicMessage, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  const text = [
    e("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    e("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hi there" } }),
  ];
  if (cut) return { sse: [start, ...text], cut: true, delayMs: 20 };
  const end = [
    e("content_block_stop", { index: 0 }),
    e("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }),
    e("message_stop", {}),
  ];
  return { sse: [start, ...text, ...end] };
}

const geminiChunk = (text: string, last: boolean) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(last && { finishReason: "STOP" }) }],
  ...(last && { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } }),
  modelVersion: "gemini-up",
});

function responsesEvents(cut: boolean): Reply {
  const whole = responsesStream([messageItem("Hi there")], { input_tokens: 10, output_tokens: 5 }) as { sse: unknown[] };
  // created, in_progress, output_item.added, output_text.delta: text went out, then the connection breaks.
  return cut ? ({ sse: whole.sse.slice(0, 4), cut: true, delayMs: 20 } as Reply) : (whole as Reply);
}

export const VARIANTS: Variant[] = [
  ...translated("chat", "chat", "/v1/chat/completions", chat),
  ...translated("responses", "responses", "/v1/responses", responses),
  ...translated("messages", "messages", "/v1/messages", messages),
  ...translated("gemini", "gemini", "/v1beta/models/{model}:generateContent", gemini),
  {
    name: "embeddings JSON",
    endpoint: "embeddings",
    route: "/v1/embeddings",
    plugin: "openai",
    baseUrl: openaiBase,
    embeddings: true,
    stream: false,
    request: () => ({ path: "/v1/embeddings", body: { model: MODEL, input: "Hello" } }),
    ok: () => ({ json: {} }), // answered per request (contract.test.ts: the fake's fallback)
  },
  { ...native("responses", "openai", openaiBase, responses), ok: () => responsesAnswer([messageItem("Hi there")], { input_tokens: 10, output_tokens: 5 }) },
  { ...native("responses", "openai", openaiBase, responses, true), ok: () => responsesEvents(false), cut: () => responsesEvents(true) },
  { ...native("messages", "anthropic", (f) => f, messages), ok: () => ({ json: anthropicMessage }) },
  { ...native("messages", "anthropic", (f) => f, messages, true), ok: () => anthropicEvents(false), cut: () => anthropicEvents(true) },
  { ...native("gemini", "google", (f) => f, gemini), route: "/v1beta/models/{model}:generateContent", ok: () => ({ json: geminiChunk("Hi there", true) }) },
  {
    ...native("gemini", "google", (f) => f, gemini, true),
    route: "/v1beta/models/{model}:generateContent",
    ok: () => ({ sse: [{ data: geminiChunk("Hi ", false) }, { data: geminiChunk("there", true) }] }),
    cut: () => ({ sse: [{ data: geminiChunk("partial ", false) }], cut: true, delayMs: 20 }),
  },
];

function native(endpoint: string, plugin: string, baseUrl: (f: string) => string, request: (s: boolean) => ReturnType<Variant["request"]>, stream = false) {
  const route = endpoint === "responses" ? "/v1/responses" : "/v1/messages";
  return { name: `${endpoint} ${stream ? "stream" : "JSON"} native`, endpoint, route, plugin, baseUrl, stream, request: () => request(stream) };
}

/** The embeddings fake answers whatever it is asked, in OpenAI's form. */
export const embeddingsFallback = openaiEmbeddingReply;
