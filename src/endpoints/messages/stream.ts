/**
 * A translated stream as Anthropic's event sequence (docs/messages.md; Anthropic's streaming
 * reference): message_start, then per content block content_block_start, its deltas
 * (text_delta, input_json_delta) and content_block_stop, then message_delta with the stop
 * reason and the usage, and message_stop. Every frame has its `event:` line, as the SDK's
 * stream helpers need. A failure after the first byte is an `event: error`. Each upstream
 * delta becomes its frames built synchronously and written at once (one write, a wait only
 * when the client is behind): the hot path of a stream (docs/messages.md, "Performance").
 */
import type { ChatRequest, Usage } from "../../core/chat-request.js";
import { checkedUsage } from "../../billing/usage-check.js";
import { estimate } from "../../pipeline/chat-upstream.js";
import type { SseSink } from "../../http/sse.js";
import type { Job, StreamResult } from "../../pipeline/endpoint.js";
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

/** What both stream writers (this one and relay.ts) take: the request's id, what was delivered, the estimate and the usage check. */
export function streamCommon(job: Job<ChatRequest>, delivered: { text: string }) {
  return {
    requestId: job.requestId,
    delivered,
    estimate: (text: string) => estimate(job.body, text),
    checkUsage: (u: Usage) => checkedUsage(u, job.route.model, 1),
  };
}

const ZERO = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

export async function writeMessageStream(out: SseSink, o: MessageStreamOptions): Promise<StreamResult> {
  const w = new BlockWriter(o);
  try {
    let frames = eventFrame("message_start", {
      message: { ...o.head, type: "message", role: "assistant", content: [], stop_reason: null, stop_sequence: null, usage: ZERO },
    });
    for (let r: IteratorResult<StreamDelta> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      frames += w.delta(r.value);
      const wait = frames ? out.write(frames) : undefined;
      frames = "";
      if (wait) await wait;
      if (out.signal.aborted) return await cancel(o, w);
    }
    if (w.finish === undefined) throw new Error("upstream ended without a finish reason");
    const estimated = !w.usage;
    w.usage ??= await o.estimate(o.delivered.text);
    const end = { delta: { stop_reason: stopReason(w.finish), stop_sequence: null }, usage: wireUsage(w.usage) };
    out.end(`${w.closeBlock()}${eventFrame("message_delta", end)}${MESSAGE_STOP}`);
    return w.result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(o, w);
    out.end(errorEvent(o.requestId));
    return w.result("error", false);
  }
}

const MESSAGE_STOP = eventFrame("message_stop", {});

async function cancel(o: MessageStreamOptions, w: BlockWriter): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return w.result("cancelled", false);
}

const textDelta = (index: number, text: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;
const jsonDelta = (index: number, json: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(json)}}}\n\n`;

/** Deltas to frames; the open block is text, or the tool call of that upstream index. */
class BlockWriter {
  private next = 0;
  private open: { index: number; tool?: number } | null = null;
  usage: Usage | null = null;
  finish: StreamDelta["finish_reason"];

  constructor(private readonly o: MessageStreamOptions) {}

  result(outcome: StreamResult["outcome"], estimated: boolean): StreamResult {
    return { usage: this.usage, estimated, text: this.o.delivered.text, outcome };
  }

  delta(d: StreamDelta): string {
    if (d.usage) this.usage = this.o.checkUsage(d.usage);
    if ((d.index ?? 0) !== 0) return ""; // a Messages request asks for one answer
    if (d.finish_reason) this.finish = d.finish_reason;
    let frames = "";
    if (d.content) frames += this.text(d.content);
    for (const t of d.tool_calls ?? []) frames += this.toolCall(t);
    return frames;
  }

  private text(text: string): string {
    this.o.delivered.text += text;
    const opened = !this.open || this.open.tool !== undefined ? this.openBlock({ type: "text", text: "" }) : "";
    return opened + textDelta(this.open!.index, text);
  }

  /** A call's first fragment (it has the id) opens its tool_use block; later fragments are its input. */
  private toolCall(t: ToolCallDelta): string {
    let frames = "";
    if (t.id !== undefined || this.open?.tool !== t.index) {
      const name = t.function?.name ?? "";
      this.o.delivered.text += name;
      frames = this.openBlock({ type: "tool_use", id: t.id ?? `toolu_${this.o.head.id.slice(4)}_${t.index}`, name, input: {} }, t.index);
    }
    const json = t.function?.arguments;
    if (!json) return frames;
    this.o.delivered.text += json;
    return frames + jsonDelta(this.open!.index, json);
  }

  private openBlock(block: Record<string, unknown>, tool?: number): string {
    const closed = this.closeBlock();
    this.open = { index: this.next++, tool };
    return closed + eventFrame("content_block_start", { index: this.open.index, content_block: block });
  }

  closeBlock(): string {
    if (!this.open) return "";
    const frame = `event: content_block_stop\ndata: {"type":"content_block_stop","index":${this.open.index}}\n\n`;
    this.open = null;
    return frame;
  }
}
