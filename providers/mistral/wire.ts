/**
 * Where Mistral's chat API differs from OpenAI's, per its reference
 * (https://docs.mistral.ai/api/#tag/chat, mirrored by mistralai/client-ts
 * docs/models/components/chatcompletionrequest.md): the seed is `random_seed`, there is no
 * `stream_options` (sending it is a 422 "extra_forbidden"; the last chunk carries usage anyway),
 * only tool messages take a `name`, tool call ids are nine alphanumerics, and finish reasons
 * add `model_length` and `error`. The same reference (ToolChoiceEnum, ImageURLChunk,
 * Prediction) gives the rest: `tool_choice` is auto|none|any|required or
 * `{type: "function", function: {name}}` ("any" is the value every Mistral API version knows,
 * also on Azure and Bedrock); an image part's `image_url` is the URL string (or `{url, detail}`);
 * `prediction.content` is a string; `response_format` json_object / json_schema and
 * `parallel_tool_calls` are OpenAI's.
 */
import { type ContentPart, readAnswer, unsupported, upstreamFailure } from "../../src/plugin/contract.js";
import { mistralModelList } from "./answer-schema.js";
import { mistralToolCallId } from "./tool-ids.js";

interface WireMessage {
  role?: string;
  name?: string;
  content?: string | ContentPart[] | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string }>;
}

export function toMistral({ seed, stream_options: _usageAlwaysSent, messages, ...body }: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, messages: (messages as WireMessage[]).map(toMistralMessage) };
  if (seed !== undefined) out.random_seed = seed;
  if (out.tool_choice === "required") out.tool_choice = "any";
  const prediction = out.prediction as { type: string; content: string | Array<{ text: string }> } | undefined;
  if (prediction && Array.isArray(prediction.content)) out.prediction = { ...prediction, content: prediction.content.map((p) => p.text).join("") };
  return out;
}

function toMistralMessage(m: WireMessage): WireMessage {
  if (m.name !== undefined && m.role !== "tool") throw unsupported("messages[].name", "Mistral accepts a name only on tool messages");
  const out = { ...m };
  if (m.tool_call_id !== undefined) out.tool_call_id = mistralToolCallId(m.tool_call_id);
  if (m.tool_calls) out.tool_calls = m.tool_calls.map((t) => ({ ...t, id: mistralToolCallId(t.id) }));
  if (Array.isArray(m.content)) out.content = m.content.map(toMistralPart) as ContentPart[];
  return out;
}

/** OpenAI's `{type: "image_url", image_url: {url, detail?}}` as Mistral's ImageURLChunk. */
function toMistralPart(p: ContentPart): unknown {
  if (p.type !== "image_url") return p;
  const { url, detail } = p.image_url;
  return { type: "image_url", image_url: detail ? { url, detail } : url };
}

/** `model_length` (the context window ran out) is a truncation; `error` is a failed generation: fail over. */
export function fromMistral(json: unknown): unknown {
  const body = json as { choices?: Array<{ finish_reason?: string | null } | null> } | null;
  // Not yet checked: a body that is not the format is left to the schema (a 502), never a TypeError here.
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  if (choices.some((c) => c?.finish_reason === "error"))
    throw upstreamFailure("failure", { retryable: true, detail: "mistral: generation ended with finish_reason 'error'" });
  if (!choices.some((c) => c?.finish_reason === "model_length")) return json;
  return { ...body, choices: choices.map((c) => (c?.finish_reason === "model_length" ? { ...c, finish_reason: "length" } : c)) };
}

/** GET /v1/models lists `max_context_length` and `capabilities.completion_chat` per model. */
export function mistralModels(json: unknown) {
  const { data } = readAnswer(mistralModelList, json, "mistral model list");
  return data.flatMap((m) => (m.capabilities?.completion_chat !== false ? [{ id: m.id, contextLength: m.max_context_length ?? undefined }] : []));
}
