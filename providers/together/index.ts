/**
 * Together AI (its API reference as generated into togethercomputer/together-typescript,
 * src/resources/chat/completions.ts and models/models.ts): `stop` is an array of strings, there
 * is no `stream_options` (the chunk carrying finish_reason always carries usage), finish reason
 * `eos` means stop (the shared mapping reads it so), and GET /models returns a bare array.
 * Of the superset the same reference has tools, tool_choice, image parts in user messages,
 * `logit_bias`, and `response_format` as `{type, schema}` (a json_schema's schema goes there).
 * Its `logprobs` is a count whose answer is not OpenAI's logprobs object, so logprobs is not
 * offered; there is no parallel_tool_calls, max_completion_tokens, user or developer role, and
 * system, assistant and tool content is a string.
 */
import { defineProvider, readAnswer } from "../../src/plugin/contract.js";
import { togetherModelList } from "./answer-schema.js";
import { openaiCompatible, PLAIN_DIALECT } from "../openai-compatible/index.js";

interface JsonSchemaFormat {
  type: string;
  json_schema?: { schema?: unknown };
}

function toTogether({ stream_options: _usageAlwaysSent, stop, ...body }: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = stop === undefined ? body : { ...body, stop: [stop].flat() };
  const format = body.response_format as JsonSchemaFormat | undefined;
  if (format?.type === "json_schema") out.response_format = { type: "json_schema", schema: format.json_schema?.schema ?? {} };
  return out;
}

function togetherModels(json: unknown) {
  const models = readAnswer(togetherModelList, json, "together model list");
  return models.flatMap((m) => (m.type == null || m.type === "chat" ? [{ id: m.id, contextLength: m.context_length ?? undefined }] : []));
}

const base = openaiCompatible({
  name: "together",
  describe: { displayName: "Together AI", byok: true, catalog: { litellm: ["together_ai"], modelsDev: "togetherai", genaiPrices: "together" } },
  baseUrl: "https://api.together.xyz/v1",
  apiKeyEnv: "TOGETHER_API_KEY",
  features: ["tools", "tool_choice", "json_object", "json_schema", "images", "image_urls", "logit_bias"],
  dialect: { ...PLAIN_DIALECT, textOnly: ["system", "developer", "assistant", "tool"] },
  transformRequest: toTogether,
  // POST /v1/embeddings (together-typescript src/resources/embeddings.ts): `model` and `input`
  // (a string or strings) only: no dimensions, no encoding_format, no token ids.
  embeddings: { features: [] },
});

export default defineProvider({ ...base, models: { request: base.models!.request, response: togetherModels } });
