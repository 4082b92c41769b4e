/**
 * Groq (https://console.groq.com/docs/api-reference#chat-create, generated into
 * groq/groq-typescript src/resources/chat/completions.ts): "only n=1 is supported. Other
 * values will result in a 400 response"; streams have carried usage in `x_groq.usage` on the last
 * chunk (ChatCompletionChunk.XGroq) and now also honour `stream_options`.
 * Of the superset it documents tools, tool_choice (OpenAI's values), parallel_tool_calls,
 * response_format json_object / json_schema, image parts (URL or base64) in user messages,
 * `reasoning_effort` ('none' | 'default' | 'low' | 'medium' | 'high'), `service_tier`
 * ('auto' | 'on_demand' | 'flex'), `max_completion_tokens` (and the deprecated `max_tokens`) and
 * `user`. `logprobs`, `top_logprobs` and `logit_bias` are "not yet supported by any of our
 * models"; `metadata` and `store` are "not currently supported"; roles are system, user,
 * assistant and tool, and system, assistant and tool content is a string.
 */
import { defineProvider, readAnswer, unsupported } from "../../src/plugin/contract.js";
import { groqModelList } from "./answer-schema.js";
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

/** OpenAI's tiers in Groq's names: `default` is Groq's `on_demand`; Groq has no scale or priority tier. */
function groqServiceTier(tier: unknown): unknown {
  if (tier === undefined || tier === "auto" || tier === "flex") return tier;
  if (tier === "default") return "on_demand";
  throw unsupported("service_tier", `Groq's tiers are auto, default (on_demand) and flex, not '${String(tier)}'`);
}

function toGroq(body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body.n === "number" && body.n > 1) throw unsupported("n", "Groq returns one choice per request (n must be 1)");
  const out = { ...body };
  // Groq's lowest effort is 'low'.
  if (out.reasoning_effort === "minimal") out.reasoning_effort = "low";
  if (out.service_tier !== undefined) out.service_tier = groqServiceTier(out.service_tier);
  return out;
}

/** Read `x_groq.usage` where OpenAI puts usage; a standard usage chunk, when sent, carries the same totals. */
function liftGroqUsage(json: unknown): unknown {
  const chunk = json as { usage?: unknown; x_groq?: { usage?: unknown } } | null;
  return chunk && !chunk.usage && chunk.x_groq?.usage ? { ...chunk, usage: chunk.x_groq.usage } : json;
}

/** GET /openai/v1/models lists `context_window` and `max_completion_tokens` per model. */
function groqModels(json: unknown) {
  const { data } = readAnswer(groqModelList, json, "groq model list");
  return data.map((m) => ({ id: m.id, contextLength: m.context_window ?? undefined, maxOutput: m.max_completion_tokens ?? undefined }));
}

const base = openaiCompatible({
  name: "groq",
  describe: { displayName: "Groq", byok: true, catalog: { litellm: ["groq"], modelsDev: "groq", genaiPrices: "groq" } },
  baseUrl: "https://api.groq.com/openai/v1",
  apiKeyEnv: "GROQ_API_KEY",
  features: ["tools", "tool_choice", "parallel_tool_calls", "json_object", "json_schema", "images", "image_urls", "reasoning_effort", "service_tier"],
  dialect: { ...PLAIN_DIALECT, outputLimit: "as_sent", textOnly: ["system", "developer", "assistant", "tool"], passive: ["user"] },
  transformRequest: toGroq,
  transformResponse: liftGroqUsage,
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: groqModels } });
