/**
 * A translated stream as Anthropic's event sequence (docs/messages.md; Anthropic's streaming
 * reference): message_start, then per content block content_block_start, its deltas
 * (text_delta, input_json_delta) and content_block_stop, then message_delta with the stop
 * reason and the usage, and message_stop. Every frame has its `event:` line, as the SDK's
 * stream helpers need. A failure after the first byte is an `event: error`.
 */
import type { Usage } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";
import type { StreamDelta, ToolCallDelta } from "../../plugin/contract.js";
import { stopReason, wireUsage, type MessageHead } from "./render.js";
import { errorEvent, eventFrame } from "./frames.js";

export interface MessageStreamOptions {
  head: MessageHead;
  requestId: string;
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  estimate(text: string): Promise<Usage>;
  checkUsage(usage: Usage): Usage;
  delivered: { text: string };
}

export async function writeMessageStream(out: SseSink, o: MessageStreamOptions): Promise<StreamResult> {
  const w = new BlockWriter(out, o);
  try {
    const zero = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { ...o.head, type: "message", role: "assistant", content: [], stop_reason: null, stop_sequence: null, usage: zero };
    await w.send("message_start", { message });
    for (let r: IteratorResult<StreamDelta> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      await w.delta(r.value);
      if (out.signal.aborted) return await cancel(o, w);
    }
    if (w.finish === undefined) throw new Error("upstream ended without a finish reason");
    await w.closeBlock();
    const estimated = !w.usage;
    w.usage ??= await o.estimate(o.delivered.text);
    await w.send("message_delta", { delta: { stop_reason: stopReason(w.finish), stop_sequence: null }, usage: wireUsage(w.usage) });
    out.end(eventFrame("message_stop", {}));
    return w.result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(o, w);
    out.end(errorEvent(o.requestId));
    return w.result("error", false);
  }
}

async function cancel(o: MessageStreamOptions, w: BlockWriter): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return w.result("cancelled", false);
}

class BlockWriter {
  private next = 0;
  /** The open block: text, or the tool call of that upstream index. */
  private open: { index: number; tool?: number } | null = null;
  usage: Usage | null = null;
  finish: StreamDelta["finish_reason"];

  constructor(
    private readonly out: SseSink,
    private readonly o: MessageStreamOptions,
  ) {}

  async send(type: string, body: Record<string, unknown>): Promise<void> {
    const wait = this.out.write(eventFrame(type, body));
    if (wait) await wait;
  }

  result(outcome: StreamResult["outcome"], estimated: boolean): StreamResult {
    return { usage: this.usage, estimated, text: this.o.delivered.text, outcome };
  }

  async delta(d: StreamDelta): Promise<void> {
    if (d.usage) this.usage = this.o.checkUsage(d.usage);
    if ((d.index ?? 0) !== 0) return; // a Messages request asks for one answer
    if (d.finish_reason) this.finish = d.finish_reason;
    if (d.content) await this.text(d.content);
    for (const t of d.tool_calls ?? []) await this.toolCall(t);
  }

  private async text(text: string): Promise<void> {
    this.o.delivered.text += text;
    if (!this.open || this.open.tool !== undefined) await this.openBlock({ type: "text", text: "" });
    await this.send("content_block_delta", { index: this.open!.index, delta: { type: "text_delta", text } });
  }

  /** A call's first fragment (it has the id) opens its tool_use block; later fragments are its input. */
  private async toolCall(t: ToolCallDelta): Promise<void> {
    if (t.id !== undefined || this.open?.tool !== t.index) {
      const name = t.function?.name ?? "";
      this.o.delivered.text += name;
      await this.openBlock({ type: "tool_use", id: t.id ?? `toolu_${this.o.head.id.slice(4)}_${t.index}`, name, input: {} }, t.index);
    }
    const json = t.function?.arguments;
    if (!json) return;
    this.o.delivered.text += json;
    await this.send("content_block_delta", { index: this.open!.index, delta: { type: "input_json_delta", partial_json: json } });
  }

  private async openBlock(block: Record<string, unknown>, tool?: number): Promise<void> {
    await this.closeBlock();
    this.open = { index: this.next++, tool };
    await this.send("content_block_start", { index: this.open.index, content_block: block });
  }

  async closeBlock(): Promise<void> {
    if (!this.open) return;
    await this.send("content_block_stop", { index: this.open.index });
    this.open = null;
  }
}
