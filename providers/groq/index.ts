/**
 * Groq (https://console.groq.com/docs/api-reference#chat-create): "only n=1 is supported. Other
 * values will result in a 400 response"; streams have carried usage in `x_groq.usage` on the last
 * chunk (groq/groq-typescript ChatCompletionChunk.XGroq) and now also honour `stream_options`.
 */
import { defineProvider, unsupported } from "../../src/provider.js";
import { openaiCompatible } from "../openai-compatible/index.js";

/** Read `x_groq.usage` where OpenAI puts usage; a standard usage chunk, when sent, carries the same totals. */
function liftGroqUsage(json: unknown): unknown {
  const chunk = json as { usage?: unknown; x_groq?: { usage?: unknown } } | null;
  return chunk && !chunk.usage && chunk.x_groq?.usage ? { ...chunk, usage: chunk.x_groq.usage } : json;
}

/** GET /openai/v1/models lists `context_window` and `max_completion_tokens` per model. */
function groqModels(json: unknown) {
  const data = (json as { data?: Array<{ id?: unknown; context_window?: unknown; max_completion_tokens?: unknown }> } | null)?.data;
  if (!Array.isArray(data)) throw new Error("models: expected a data array");
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return data.flatMap((m) => (typeof m.id === "string" ? [{ id: m.id, contextLength: num(m.context_window), maxOutput: num(m.max_completion_tokens) }] : []));
}

const base = openaiCompatible({
  name: "groq",
  baseUrl: "https://api.groq.com/openai/v1",
  apiKeyEnv: "GROQ_API_KEY",
  transformRequest(body) {
    if (typeof body.n === "number" && body.n > 1) throw unsupported("n", "Groq returns one choice per request (n must be 1)");
    return body;
  },
  transformResponse: liftGroqUsage,
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: groqModels } });
