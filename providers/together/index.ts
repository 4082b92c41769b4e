/**
 * Together AI (its API reference as generated into togethercomputer/together-typescript,
 * src/resources/chat/completions.ts and models/models.ts): `stop` is an array of strings, there
 * is no `stream_options` (the chunk carrying finish_reason always carries usage), finish reason
 * `eos` means stop (the shared mapping reads it so), and GET /models returns a bare array.
 */
import { defineProvider } from "../../src/provider.js";
import { openaiCompatible } from "../openai-compatible/index.js";

function togetherModels(json: unknown) {
  if (!Array.isArray(json)) throw new Error("models: expected an array");
  const models = json as Array<{ id?: unknown; type?: unknown; context_length?: unknown }>;
  return models.flatMap((m) =>
    typeof m.id === "string" && (m.type === undefined || m.type === "chat")
      ? [{ id: m.id, contextLength: typeof m.context_length === "number" ? m.context_length : undefined }]
      : [],
  );
}

const base = openaiCompatible({
  name: "together",
  baseUrl: "https://api.together.xyz/v1",
  apiKeyEnv: "TOGETHER_API_KEY",
  transformRequest({ stream_options: _usageAlwaysSent, stop, ...body }) {
    return stop === undefined ? body : { ...body, stop: [stop].flat() };
  },
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: togetherModels } });
