/**
 * The non-streamed answer's choices and usage in the dialect the config speaks: api.md's
 * closed set under `strict`; under `openai` also `message.refusal`, `choices[].logprobs` and
 * the `content_filter` finish reason, as OpenAI's published schema requires.
 */
import type { Completion } from "../../plugin/contract.js";
import type { FinishReason, Usage } from "../../core/chat-request.js";
import { usageOut } from "./usage-out.js";

/** api.md knows stop, length and tool_calls: a safety stop is a stop there. */
export function finishFor(reason: FinishReason, openai: boolean): FinishReason {
  return reason === "content_filter" && !openai ? "stop" : reason;
}

export function renderCompletion(value: Completion, usage: Usage, openai: boolean) {
  return {
    choices: value.choices.map((c) => {
      const message: Record<string, unknown> = { role: "assistant", content: c.content };
      if (c.tool_calls?.length) message.tool_calls = c.tool_calls;
      if (!openai) return { index: c.index, message, finish_reason: finishFor(c.finish_reason, false) };
      message.refusal = c.refusal ?? null;
      return { index: c.index, message, logprobs: c.logprobs ?? null, finish_reason: c.finish_reason };
    }),
    usage: usageOut(usage),
  };
}

/** Object levels of a chat request where `null` stands for "not sent" (JSON Schemas inside are left alone). */
export function dropNulls(body: unknown): void {
  if (!isObject(body)) return;
  strip(body);
  if (isObject(body.stream_options)) strip(body.stream_options);
  if (isObject(body.response_format)) {
    strip(body.response_format);
    if (isObject(body.response_format.json_schema)) strip(body.response_format.json_schema);
  }
  if (Array.isArray(body.tools)) for (const t of body.tools) if (isObject(t) && isObject(t.function)) strip(t.function);
  if (!Array.isArray(body.messages)) return;
  for (const m of body.messages) {
    if (!isObject(m)) continue;
    // `content: null` and `audio: null` are meaningful as they are (an assistant turn of only tool calls).
    for (const k of Object.keys(m)) if (m[k] === null && k !== "content" && k !== "audio" && k !== "refusal") delete m[k];
  }
}

function strip(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) if (o[k] === null) delete o[k];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
