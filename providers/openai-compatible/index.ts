/**
 * The OpenAI wire format, shared by every OpenAI-format provider. A preset differs by its
 * defaults and, where the provider has a quirk, one of the hooks below; it never copies
 * this file. Also the `openai-compatible` plugin for local servers (Ollama, vLLM, ...).
 */
import {
  defineProvider,
  pulled,
  readAnswer,
  type CallContext,
  type Feature,
  type ProviderDescription,
  type ProviderPlugin,
  type StreamDelta,
  type UpstreamEvent,
  type UpstreamRequest,
} from "../../src/plugin/contract.js";
import { OPENAI_DIALECT, PLAIN_DIALECT, toOpenAIBody, type Dialect } from "./request.js";
import { openaiEmbeddings, type OpenAIEmbeddingsOptions } from "./embeddings.js";
import { modelListSchema } from "./answer-schema.js";
import { ChunkReader } from "./stream.js";
import { fromChatCompletion } from "./translate.js";

export { toOpenAIBody, OPENAI_DIALECT, PLAIN_DIALECT, type Dialect };
export { OPENAI_EMBEDDING_FEATURES } from "./embeddings.js";

/** OpenAI's own API takes the whole superset as it is. */
export const OPENAI_FEATURES: readonly Feature[] = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "json_object",
  "json_schema",
  "images",
  "image_urls",
  "logprobs",
  "reasoning_effort",
  "logit_bias",
  "service_tier",
  "store",
  "prediction",
  "web_search",
  "verbosity",
];

export interface OpenAICompatibleOptions {
  name: string;
  /** What the core reads of this provider (src/plugin/contract.ts ProviderDescription). */
  describe: ProviderDescription;
  baseUrl: string;
  apiKeyEnv?: string;
  /** The superset fields this provider's API honours (default: all of OpenAI's). */
  features?: readonly Feature[];
  /** How its wire differs from OpenAI's where no feature is at stake (default: OpenAI's own). */
  dialect?: Dialect;
  /** Adjust the outgoing body (rename a field, drop one the provider rejects). */
  transformRequest?(body: Record<string, unknown>, ctx: CallContext): Record<string, unknown>;
  /**
   * Adjust a response body or a stream chunk before translation (move usage to where OpenAI
   * puts it, rename a finish reason). Throw when it reports a provider failure: the core fails
   * over, or ends an already started stream with an error event.
   */
  transformResponse?(json: unknown, ctx: CallContext): unknown;
  /** Auth and extra headers; default `Authorization: Bearer <key>`. */
  headers?(ctx: Pick<CallContext, "apiKey" | "settings">): Record<string, string>;
  /** The chat URL; default `<baseUrl>/chat/completions`. */
  chatUrl?(ctx: CallContext): string;
  modelsUrl?(ctx: Pick<CallContext, "settings">): string;
  /** POST /embeddings where the provider has it (./embeddings.ts); absent: no embeddings API. */
  embeddings?: OpenAIEmbeddingsOptions;
}

const bearer = (ctx: Pick<CallContext, "apiKey">): Record<string, string> => (ctx.apiKey ? { authorization: `Bearer ${ctx.apiKey}` } : {});

export function openaiCompatible(options: OpenAICompatibleOptions): ProviderPlugin {
  const headers = options.headers ?? bearer;
  const fromWire = options.transformResponse ?? ((json: unknown) => json);
  const trimmed = (url: string) => url.replace(/\/+$/, "");
  const features = options.features ?? OPENAI_FEATURES;
  const translator = (ctx: CallContext) => {
    const reader = new ChunkReader(options.name);
    return (event: UpstreamEvent, emit: (d: StreamDelta) => void) => reader.read(fromWire(event.data, ctx), emit);
  };
  return defineProvider({
    name: options.name,
    describe: options.describe,
    features,
    defaults: { baseUrl: options.baseUrl, apiKeyEnv: options.apiKeyEnv },
    chat: {
      request(req, ctx): UpstreamRequest {
        let body = toOpenAIBody(req, ctx, features, options.dialect);
        if (options.transformRequest) body = options.transformRequest(body, ctx);
        return {
          url: options.chatUrl?.(ctx) ?? `${trimmed(ctx.settings.baseUrl)}/chat/completions`,
          headers: { "content-type": "application/json", ...headers(ctx) },
          body: JSON.stringify(body),
        };
      },
      response: (json, ctx) => fromChatCompletion(fromWire(json, ctx), options.name),
      stream: (events, ctx) => pulled(events, translator(ctx)),
      // What the core uses for every OpenAI-format provider (SSE relayed by push); `stream` is the same translation.
      streamEvents: translator,
    },
    ...(options.embeddings ? { embeddings: openaiEmbeddings(options.name, options.embeddings, headers) } : {}),
    models: {
      request: (ctx) => ({
        url: options.modelsUrl?.(ctx) ?? `${trimmed(ctx.settings.baseUrl)}/models`,
        method: "GET",
        headers: headers(ctx),
      }),
      response(json) {
        const { data } = readAnswer(modelListSchema, json, `${options.name} model list`);
        return data.map((m) => ({ id: m.id, contextLength: m.context_length ?? undefined }));
      },
    },
  });
}

/**
 * Local servers (Ollama, vLLM, llama.cpp, LM Studio): the operator chose the server and its
 * model, so what the OpenAI wire carries for tools, JSON output, images and logprobs is
 * forwarded as is, and the server answers for it. Not declared: what these servers accept
 * and ignore without a word (`parallel_tool_calls: false`, `logit_bias`, `reasoning_effort`,
 * `service_tier`, ...), since a request relying on them would silently get something else.
 * Chat templates know `system`, not `developer`; every one of them knows `max_tokens`.
 */
export const LOCAL_FEATURES: readonly Feature[] = ["tools", "tool_choice", "json_object", "json_schema", "images", "image_urls", "logprobs"];

export default openaiCompatible({
  name: "openai-compatible",
  describe: { displayName: "OpenAI-compatible server (Ollama, LM Studio, vLLM)", keyless: true },
  baseUrl: "http://127.0.0.1:11434/v1",
  features: LOCAL_FEATURES,
  dialect: PLAIN_DIALECT,
  // The server's own /v1/embeddings (Ollama, vLLM, llama.cpp): the OpenAI fields forwarded as they are.
  embeddings: { features: ["dimensions", "tokens"], user: true },
});
