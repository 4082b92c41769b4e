/**
 * Shared by the /v1/messages suites: a gateway with an Anthropic-format fake (served natively)
 * and an OpenAI-format fake (translated), their prices, and the OpenAI-format replies the
 * translated path needs beyond helpers/openai-wire.ts (a streamed tool call).
 */
import type { Reply } from "./fake-upstream.js";

export const ANTHROPIC_KEY = "sk-ant-api03-messages-test-4c1d";
export const OPENAI_KEY = "sk-openai-messages-test-9e2f";
export const CLAUDE = "claude-sonnet-4-5";
export const CLAUDE_UPSTREAM = "claude-sonnet-4-5-20250929";

/** nano-USD per token: USD per 1M tokens × 1000. */
export const CLAUDE_PRICES = { prompt: 3000, completion: 15000, cacheRead: 300, cacheWrite: 3750 };
export const GPT_PRICES = { prompt: 1000, completion: 2000 };

/** Anthropic natively, an OpenAI-format model behind a `claude-3-*`-style glob alias. */
export function messagesConfig(
  anthropicUrl: string,
  openaiUrl: string,
  aliases: Record<string, string> = { "claude-haiku-*": "openai/gpt-4o-mini", "claude-opus-*": "openai/o4-mini" },
) {
  return {
    providers: {
      anthropic: { baseUrl: anthropicUrl, apiKey: ANTHROPIC_KEY },
      openai: { baseUrl: `${openaiUrl}/v1`, apiKey: OPENAI_KEY },
    },
    models: [
      {
        id: `anthropic/${CLAUDE}`,
        pricing: { prompt: "3", completion: "15", cache_read: "0.3", cache_write: "3.75" },
        context_length: 200000,
        max_output: 64000,
        endpoints: [{ provider: "anthropic", model: CLAUDE_UPSTREAM }],
      },
      {
        id: "openai/gpt-4o-mini",
        pricing: { prompt: "1", completion: "2" },
        context_length: 128000,
        max_output: 16384,
        endpoints: [{ provider: "openai", model: "gpt-4o-mini" }],
      },
      {
        id: "openai/o4-mini",
        pricing: { prompt: "1", completion: "2" },
        context_length: 200000,
        max_output: 100000,
        capabilities: { reasoning: true },
        endpoints: [{ provider: "openai", model: "o4-mini" }],
      },
    ],
    aliases,
    retry: { initialInterval: 5, maxInterval: 10, exponent: 1.5, maxElapsedTime: 2000 },
  };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) => ({
  data: {
    id: "chatcmpl-msg1",
    object: "chat.completion.chunk",
    created: 1_741_569_952,
    model: "gpt-4o-mini",
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    usage,
  },
});

/** OpenAI's streamed tool call: the first fragment has id, type and name, then argument pieces; usage last. */
export function openaiToolStream(id: string, name: string, args: string, usage: { prompt_tokens: number; completion_tokens: number }): Reply {
  const mid = Math.floor(args.length / 2);
  return {
    sse: [
      chunk({ role: "assistant", content: null }),
      chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, mid) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(mid) } }] }),
      chunk({}, "tool_calls"),
      chunk({}, null, { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }),
    ],
  };
}

/** OpenAI's non-streamed tool call. */
export function openaiToolCall(id: string, name: string, args: string, usage: { prompt_tokens: number; completion_tokens: number }): Reply {
  return {
    json: {
      id: "chatcmpl-msg2",
      object: "chat.completion",
      created: 1_741_569_952,
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] },
          finish_reason: "tool_calls",
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** A /v1/messages request's cost as the ledger must show it (Anthropic's buckets). */
export function claudeCost(u: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number }): number {
  const p = CLAUDE_PRICES;
  return (
    u.input_tokens * p.prompt +
    (u.cache_read_input_tokens ?? 0) * p.cacheRead +
    (u.cache_creation_input_tokens ?? 0) * p.cacheWrite +
    u.output_tokens * p.completion
  );
}
