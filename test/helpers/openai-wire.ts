/**
 * OpenAI Chat Completions wire fixtures, as the API reference shows them: a chat.completion
 * object, and chat.completion.chunk events with a trailing usage chunk (include_usage).
 */
import type { Reply } from "./fake-upstream.js";

export interface WireUsage { prompt_tokens: number; completion_tokens: number }

export function completion(text: string | null, usage: WireUsage = { prompt_tokens: 12, completion_tokens: 5 }, extra: Record<string, unknown> = {}): Reply {
  return {
    json: {
      id: "chatcmpl-upstream1",
      object: "chat.completion",
      created: 1_741_569_952,
      model: "gpt-4o-mini-2024-07-18",
      system_fingerprint: "fp_44709d6fcb",
      choices: [{
        index: 0,
        message: { role: "assistant", content: text, refusal: null, annotations: [], ...extra },
        logprobs: null,
        finish_reason: extra.tool_calls ? "tool_calls" : "stop",
      }],
      usage: {
        ...usage,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: "default",
    },
  };
}

const chunk = (choices: unknown[], usage: unknown = null) => ({
  id: "chatcmpl-upstream2", object: "chat.completion.chunk", created: 1_741_569_952, model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_44709d6fcb", choices, usage,
});

/** The exact event sequence: role chunk, content chunks, finish chunk, usage chunk, [DONE]. */
export function stream(pieces: string[], usage: WireUsage = { prompt_tokens: 12, completion_tokens: 5 }, opts: { finish?: string; cut?: boolean; delayMs?: number; noUsage?: boolean } = {}): Reply {
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
    ...pieces.map((p) => chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }])),
  ];
  if (!opts.cut) {
    events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: opts.finish ?? "stop" }]));
    if (!opts.noUsage) events.push(chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }));
  }
  return { sse: events.map((data) => ({ data })), cut: opts.cut, delayMs: opts.delayMs };
}

export function error(status: number, message = "upstream says no", headers: Record<string, string> = {}): Reply {
  return { status, headers, json: { error: { message, type: status === 429 ? "requests" : "invalid_request_error", param: null, code: null } } };
}
