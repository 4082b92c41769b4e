/**
 * Token counts for when an upstream reports none (a cut stream, a provider without usage).
 * o200k_base is loaded only on that path: it is large and the hot path never needs it.
 */
import { textOf } from "../core/content.js";
import type { ChatMessage } from "../core/chat-request.js";

/** An image's usual cost when the provider reports no usage (OpenAI's 512x512 high detail is 255; large ones ~1,000). */
const IMAGE_TOKENS_ESTIMATE = 1000;

type Counter = (text: string) => number;
let counter: Promise<Counter> | undefined;

/** BPE cost grows faster than linearly on a long run without word breaks: count in pieces. */
const PIECE = 4096;
/** Past this, the count of the first part is scaled up: an estimate must not cost minutes. */
const MAX_EXACT = 1_000_000;

function load(): Promise<Counter> {
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => bounded(m.countTokens as Counter));
  return counter;
}

function bounded(count: Counter): Counter {
  return (text) => {
    if (text.length <= PIECE) return count(text);
    const exact = text.length > MAX_EXACT ? text.slice(0, MAX_EXACT) : text;
    let n = 0;
    for (let i = 0; i < exact.length; i += PIECE) n += count(exact.slice(i, i + PIECE));
    return exact === text ? n : Math.ceil((n * text.length) / exact.length);
  };
}

/** OpenAI's chat format: 3 tokens per message of framing plus 3 to prime the reply. */
export async function countPromptTokens(messages: ChatMessage[]): Promise<number> {
  return promptTokens(messages, await load());
}

/**
 * An estimate for count_tokens (docs/messages.md, "count_tokens"): the prompt and `extra` text
 * (tool definitions) counted as countPromptTokens counts them, but at most `exactChars`
 * characters in all go through the tokenizer; the rest are counted at the rate the tokenized
 * part showed (4 characters a token when nothing was). The tokenizer costs ~0.1 µs a character
 * on the event loop: unbounded, a body of a few MB is a CPU sink nobody pays for.
 */
export async function estimatePromptTokens(messages: ChatMessage[], extra: string, exactChars: number): Promise<number> {
  const count = await load();
  let left = exactChars;
  let exact = { chars: 0, tokens: 0 };
  let rest = 0;
  const within: Counter = (text) => {
    const head = text.length <= left ? text : text.slice(0, left);
    left -= head.length;
    rest += text.length - head.length;
    const n = head ? count(head) : 0;
    exact = { chars: exact.chars + head.length, tokens: exact.tokens + n };
    return n;
  };
  const counted = promptTokens(messages, within) + (extra ? within(extra) : 0);
  return counted + Math.ceil(rest * (exact.chars ? exact.tokens / exact.chars : 1 / CHARS_PER_TOKEN));
}

function promptTokens(messages: ChatMessage[], count: Counter): number {
  let total = 3;
  for (const m of messages) {
    total += 3 + count(textOf(m.content)) + (m.name ? count(m.name) + 1 : 0);
    if (Array.isArray(m.content)) total += m.content.filter((p) => p.type === "image_url").length * IMAGE_TOKENS_ESTIMATE;
    for (const t of m.tool_calls ?? []) total += count(t.function.name) + count(t.function.arguments) + 3;
  }
  return total;
}

export async function countTextTokens(text: string): Promise<number> {
  return text ? (await load())(text) : 0;
}

/**
 * Tokens of `chars` characters without a tokenizer: ~4 characters a token (OpenAI's rule of
 * thumb for English). Only for what the in-flight journal records while a stream runs
 * (docs/billing.md): a ledger row of a stream that ended is counted with o200k.
 */
const CHARS_PER_TOKEN = 4;

export function roughTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The prompt's characters as countPromptTokens counts them (text, names, tool calls) and its images' tokens. */
export function promptSize(messages: ChatMessage[]): { chars: number; imageTokens: number } {
  let chars = 0;
  let imageTokens = 0;
  for (const m of messages) {
    chars += textOf(m.content).length + (m.name?.length ?? 0);
    if (Array.isArray(m.content)) for (const p of m.content) if (p.type === "image_url") imageTokens += IMAGE_TOKENS_ESTIMATE;
    for (const t of m.tool_calls ?? []) chars += t.function.name.length + t.function.arguments.length;
  }
  return { chars, imageTokens };
}
