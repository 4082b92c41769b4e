/**
 * Anthropic Messages API (https://docs.anthropic.com/en/api/messages, streaming:
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming). `baseUrl` follows the
 * official SDK: the host without `/v1`. Options: `maxTokens`, the `max_tokens` sent when a
 * request has none (default: the model family's output limit, else 4096).
 */
import { defineProvider, pulled, type CallContext, type Feature } from "../../src/plugin/contract.js";
import { jsonToolOf } from "./call-state.js";
import { classifyError } from "./errors.js";
import { MODELS_PATH, modelsOf } from "./models.js";
import { nativeMessages } from "./native.js";
import { toMessagesBody } from "./request.js";
import { fromMessage } from "./response.js";
import { eventTranslator } from "./stream.js";

/** The only current version of the API (the SDKs send it on every request). */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * What of the OpenAI superset this adapter translates (docs/openai-compat.md). Not here, so a 400
 * from the core: logprobs, logit_bias, service_tier, store: true, prediction, web_search_options
 * and verbosity, which the Messages API has no equivalent for.
 */
export const ANTHROPIC_FEATURES: readonly Feature[] = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "json_object",
  "json_schema",
  "images",
  "image_urls",
  "reasoning_effort",
];

const base = (ctx: Pick<CallContext, "settings">) => ctx.settings.baseUrl.replace(/\/+$/, "");

const auth = (ctx: Pick<CallContext, "apiKey">): Record<string, string> => ({
  ...(ctx.apiKey ? { "x-api-key": ctx.apiKey } : {}),
  "anthropic-version": ANTHROPIC_VERSION,
});

export default defineProvider({
  name: "anthropic",
  describe: {
    displayName: "Anthropic",
    byok: true,
    catalog: { litellm: ["anthropic"], modelsDev: "anthropic" },
    options: ["maxTokens"],
    // Web search $10 per 1,000 searches (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool);
    // web fetch has no charge beyond its tokens (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-fetch-tool).
    toolCallPrices: () => ({ web_search: "10", web_fetch: "0" }),
  },
  features: ANTHROPIC_FEATURES,
  defaults: { baseUrl: "https://api.anthropic.com", apiKeyEnv: "ANTHROPIC_API_KEY" },
  chat: {
    request: (body, ctx) => ({
      url: `${base(ctx)}/v1/messages`,
      headers: { "content-type": "application/json", ...auth(ctx) },
      body: JSON.stringify(toMessagesBody(body, ctx)),
    }),
    response: (json, ctx) => fromMessage(json, jsonToolOf(ctx)),
    stream: (events, ctx) => pulled(events, eventTranslator(jsonToolOf(ctx))),
    // SSE relayed by push (src/upstream/relay.ts), as for OpenAI-format providers.
    streamEvents: (ctx) => eventTranslator(jsonToolOf(ctx)),
  },
  native: { messages: nativeMessages },
  classifyError,
  models: {
    request: (ctx) => ({ url: `${base(ctx)}${MODELS_PATH}`, method: "GET", headers: auth(ctx) }),
    response: modelsOf,
  },
});
