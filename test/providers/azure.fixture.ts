/**
 * Azure OpenAI fixtures. The wire format is OpenAI's (shared fixture), reached at Azure's
 * deployment URL and authenticated with the `api-key` header, so `seen` reads that header.
 * Azure's own stream additions, as its API reference and recorded streams show them: a first
 * chunk with empty `choices` and `prompt_filter_results`, `content_filter_results` on choices,
 * and (asynchronous filter) chunks carrying only `content_filter_offsets`.
 * https://learn.microsoft.com/azure/ai-foundry/openai/reference#chat-completions
 * https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-streaming
 */
import type { ProviderFixture } from "../helpers/conformance.js";
import type { Reply } from "../helpers/fake-upstream.js";
import { openaiFormatFixture } from "../helpers/openai-wire.js";

export const DEPLOYMENT = "gpt4o-mini-prod";

export function azureFixture(options: Record<string, unknown> = {}): ProviderFixture {
  const base = openaiFormatFixture("azure", { basePath: "/openai", upstreamModel: DEPLOYMENT, extra: options });
  return {
    ...base,
    seen: (req) => {
      const key = req.headers["api-key"];
      return { ...base.seen(req), auth: typeof key === "string" ? key : undefined };
    },
  };
}

const safe = {
  hate: { filtered: false, severity: "safe" },
  self_harm: { filtered: false, severity: "safe" },
  sexual: { filtered: false, severity: "safe" },
  violence: { filtered: false, severity: "safe" },
};

const chunk = (choices: unknown[], usage: unknown = null) => ({
  id: "chatcmpl-AzUre5tream",
  object: "chat.completion.chunk",
  created: 1_741_569_952,
  model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_b705f0c291",
  choices,
  usage,
});

export function azureStream(pieces: string[], usage: { prompt_tokens: number; completion_tokens: number }): Reply {
  const events = [
    {
      choices: [],
      created: 0,
      id: "",
      model: "",
      object: "",
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { ...safe, jailbreak: { filtered: false, detected: false } } }],
    },
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null, content_filter_results: {} }]),
    ...pieces.map((p) => chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null, content_filter_results: safe }])),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop", content_filter_results: {} }]),
    {
      choices: [{ index: 0, finish_reason: null, content_filter_results: safe, content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 42 } }],
      created: 0,
      id: "",
      model: "",
      object: "",
    },
    chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens, prompt_tokens_details: { cached_tokens: 0 } }),
  ];
  return { sse: events.map((data) => ({ data })) };
}
