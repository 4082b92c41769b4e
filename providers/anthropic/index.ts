/**
 * Anthropic Messages API (https://docs.anthropic.com/en/api/messages, streaming:
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming). `baseUrl` follows the
 * official SDK: the host without `/v1`. Options: `maxTokens`, the `max_tokens` sent when a
 * request has none (default: the model family's output limit, else 4096).
 */
import { defineProvider, type CallContext } from "../../src/provider.js";
import { classifyError } from "./errors.js";
import { MODELS_PATH, modelsOf } from "./models.js";
import { toMessagesBody } from "./request.js";
import { fromMessage } from "./response.js";
import { fromEvents } from "./stream.js";

/** The only current version of the API (the SDKs send it on every request). */
export const ANTHROPIC_VERSION = "2023-06-01";

const base = (ctx: Pick<CallContext, "settings">) => ctx.settings.baseUrl.replace(/\/+$/, "");

const auth = (ctx: Pick<CallContext, "apiKey">): Record<string, string> => ({
  ...(ctx.apiKey ? { "x-api-key": ctx.apiKey } : {}),
  "anthropic-version": ANTHROPIC_VERSION,
});

export default defineProvider({
  name: "anthropic",
  defaults: { baseUrl: "https://api.anthropic.com", apiKeyEnv: "ANTHROPIC_API_KEY" },
  chat: {
    request: (body, ctx) => ({
      url: `${base(ctx)}/v1/messages`,
      headers: { "content-type": "application/json", ...auth(ctx) },
      body: JSON.stringify(toMessagesBody(body, ctx)),
    }),
    response: (json) => fromMessage(json),
    stream: (events) => fromEvents(events),
  },
  classifyError,
  models: {
    request: (ctx) => ({ url: `${base(ctx)}${MODELS_PATH}`, method: "GET", headers: auth(ctx) }),
    response: modelsOf,
  },
});
