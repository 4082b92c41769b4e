/**
 * The non-streamed answer's choices and usage in the dialect the config speaks: docs/http.md's
 * closed set under `strict`; under `openai` also `message.refusal`, `choices[].logprobs` and
 * the `content_filter` finish reason, as OpenAI's published schema requires.
 */
import type { Completion } from "../../plugin/contract.js";
import type { FinishReason, Usage } from "../../core/chat-request.js";
import { usageOut } from "./usage-out.js";

/** docs/http.md knows stop, length and tool_calls: a safety stop is a stop there. */
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
