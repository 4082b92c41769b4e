/**
 * A chat answer both ways (docs/cache.md): a streamed answer assembled into the completion the
 * cache keeps, and a kept completion cut back into deltas so a hit on `stream: true` replays
 * as chat's ordinary chunk stream (content, tool calls, then finish and usage).
 */
import type { Completion, StreamDelta, ToolCall, Usage } from "../plugin/contract.js";

type Choice = Completion["choices"][number];

/** Collects a stream's deltas into one completion. */
export class ChatAssembler {
  private readonly choices = new Map<number, Choice>();

  add(d: StreamDelta): void {
    const i = d.index ?? 0;
    let c = this.choices.get(i);
    if (!c) this.choices.set(i, (c = { index: i, content: null, finish_reason: null }));
    if (d.content) c.content = (c.content ?? "") + d.content;
    if (d.refusal) c.refusal = (c.refusal ?? "") + d.refusal;
    if (d.finish_reason) c.finish_reason = d.finish_reason;
    for (const t of d.tool_calls ?? []) {
      const calls = (c.tool_calls ??= []);
      const call: ToolCall = (calls[t.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (t.id) call.id = t.id;
      if (t.function?.name) call.function.name += t.function.name;
      if (t.function?.arguments) call.function.arguments += t.function.arguments;
    }
  }

  completion(usage: Usage): Completion {
    return { choices: [...this.choices.values()].sort((a, b) => a.index - b.index), usage };
  }
}

/** The deltas of a kept completion, in stream order; the last one of each choice finishes it. */
export function deltasOf(c: Completion, usage: Usage): StreamDelta[] {
  const out: StreamDelta[] = [];
  for (const ch of c.choices) {
    if (ch.content) out.push({ index: ch.index, content: ch.content });
    if (ch.refusal) out.push({ index: ch.index, refusal: ch.refusal });
    const tools = (ch.tool_calls ?? []).map((t, index) => ({ index, id: t.id, type: t.type, function: t.function }));
    if (tools.length) out.push({ index: ch.index, tool_calls: tools });
    out.push({ index: ch.index, finish_reason: ch.finish_reason ?? "stop" });
  }
  if (out.length) out[out.length - 1]!.usage = usage;
  return out;
}
