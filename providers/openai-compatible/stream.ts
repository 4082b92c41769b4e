/**
 * `chat.completion.chunk` events into stream deltas
 * (https://platform.openai.com/docs/api-reference/chat-streaming). Tool-call fragments are
 * re-indexed here, because not every OpenAI-format server sends them as OpenAI does:
 * - Ollama and Gemini's OpenAI-compatible endpoint omit `index` (ollama/ollama#7881,
 *   openai/openai-python#2806); Mistral and xAI send each call whole, and parallel calls may
 *   all say index 0. A fragment with a new `id` is a new call; one without an id continues
 *   the call its `index` names, else the latest call.
 * - The first fragment of a call always carries `id`, `type`, `name` and `arguments: ""`, as
 *   the official clients' stream helpers expect; a call without an upstream id gets one.
 * - A call whose arguments stayed empty gets `"{}"` before its finish reason, so the
 *   assembled call parses (openai/openai-agents-js#664).
 */
import { randomUUID } from "node:crypto";
import { readAnswer, type StreamDelta, type ToolCallDelta } from "../../src/plugin/contract.js";
import { chunkSchema, plainChunk, type WireChunkChoice, type WireToolDelta } from "./answer-schema.js";
import { contentText, finishReason, logprobsOf, usageOf } from "./translate.js";

interface Call {
  upstreamIndex?: number;
  id: string;
  argumentsLength: number;
}

/** One per stream: it remembers the calls seen so far in each choice. */
export class ChunkReader {
  /** Made at the first tool call: most streams have none. */
  private calls: Map<number, Call[]> | undefined;
  private readonly what: string;

  constructor(provider: string) {
    this.what = `${provider} chat.completion.chunk`;
  }

  /** One chunk's deltas, each given to `emit` (synchronously: no generator per chunk). */
  read(json: unknown, emit: (delta: StreamDelta) => void): void {
    const chunk = plainChunk(json) ?? readAnswer(chunkSchema, json, this.what);
    for (const c of chunk.choices ?? []) this.choice(c, emit);
    const usage = usageOf(chunk.usage);
    if (usage) emit({ usage });
  }

  private choice(c: WireChunkChoice, emit: (delta: StreamDelta) => void): void {
    const index = c.index ?? 0;
    const delta: StreamDelta = { index };
    const text = contentText(c.delta?.content);
    if (text) delta.content = text;
    if (c.delta?.refusal) delta.refusal = c.delta.refusal;
    const logprobs = logprobsOf(c.logprobs);
    if (logprobs !== undefined) delta.logprobs = logprobs;
    if (c.delta?.tool_calls) {
      const fragments = c.delta.tool_calls.flatMap((t) => this.fragments(index, t));
      if (fragments.length) delta.tool_calls = fragments;
    }
    if (delta.content !== undefined || delta.refusal !== undefined || delta.tool_calls || delta.logprobs !== undefined) emit(delta);
    const reason = finishReason(c.finish_reason);
    if (!reason) return;
    const fixes = this.emptyArguments(index);
    if (fixes.length) emit({ index, tool_calls: fixes });
    emit({ index, finish_reason: reason });
  }

  private fragments(choice: number, t: WireToolDelta): ToolCallDelta[] {
    this.calls ??= new Map();
    const calls = this.calls.get(choice) ?? [];
    this.calls.set(choice, calls);
    const args = t.function?.arguments ?? "";
    const at = this.find(calls, t);
    if (at >= 0) {
      calls[at]!.argumentsLength += args.length;
      return args ? [{ index: at, function: { arguments: args } }] : [];
    }
    const call: Call = { upstreamIndex: t.index, id: t.id || `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`, argumentsLength: args.length };
    calls.push(call);
    const index = calls.length - 1;
    const first: ToolCallDelta = { index, id: call.id, type: "function", function: { name: t.function?.name ?? "", arguments: "" } };
    return args ? [first, { index, function: { arguments: args } }] : [first];
  }

  /** The call a fragment continues, or -1 when it starts a new one. */
  private find(calls: Call[], t: WireToolDelta): number {
    if (t.id) return calls.findIndex((c) => c.id === t.id);
    if (t.index === undefined) return calls.length - 1;
    // The latest call with that index: Mistral may number parallel calls all 0.
    for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!.upstreamIndex === t.index) return i;
    return -1;
  }

  private emptyArguments(choice: number): ToolCallDelta[] {
    const calls = this.calls?.get(choice) ?? [];
    return calls.flatMap((c, index) => {
      if (c.argumentsLength > 0) return [];
      c.argumentsLength = 2;
      return [{ index, function: { arguments: "{}" } }];
    });
  }
}
