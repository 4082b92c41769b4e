/**
 * Anthropic's named SSE events into StreamDeltas. Each tool_use block is the next tool
 * call (0-based among tool calls). Usage is kept from message_start, updated by every
 * message_delta (its counts are cumulative), and sent with the finish reason: after all
 * content, so it never commits a stream that could still fail over.
 */
import type { StreamDelta, UpstreamEvent } from "../../src/provider.js";
import { finishReason, usageOf, type WireUsage } from "./response.js";

interface WireEvent {
  type?: string;
  index?: number;
  message?: { usage?: WireUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: WireUsage;
  error?: { type?: string };
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

export async function* fromEvents(events: AsyncIterable<UpstreamEvent>): AsyncIterable<StreamDelta> {
  const state = new StreamState();
  for await (const event of events) {
    const data = (event.data ?? {}) as WireEvent;
    const type = data.type ?? event.event;
    if (type === "message_stop") return;
    // Thrown, so the core fails over (before the first delta) or ends the client stream with an error event.
    if (type === "error") throw new Error(`anthropic stream error: ${data.error?.type ?? "unknown"}`);
    const delta = state.step(type, data);
    if (delta) yield delta;
  }
}

class StreamState {
  private usage: WireUsage = {};
  /** Content block index -> tool call index. */
  private tools = new Map<number, number>();

  step(type: string | undefined, e: WireEvent): StreamDelta | undefined {
    if (type === "message_start") this.keepUsage(e.message?.usage);
    else if (type === "content_block_start") return this.blockStart(e);
    else if (type === "content_block_delta") return this.blockDelta(e);
    else if (type === "message_delta") return this.messageDelta(e);
    // ping, content_block_stop and event types added later carry nothing for us.
    return undefined;
  }

  private keepUsage(u: WireUsage | undefined): void {
    for (const key of USAGE_KEYS) {
      const value = u?.[key];
      if (typeof value === "number") this.usage[key] = value;
    }
  }

  private blockStart(e: WireEvent): StreamDelta | undefined {
    const block = e.content_block;
    if (block?.type === "text" && block.text) return { content: block.text };
    if (block?.type !== "tool_use") return undefined;
    const index = this.tools.size;
    this.tools.set(e.index ?? -1, index);
    return { tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name ?? "", arguments: "" } }] };
  }

  private blockDelta(e: WireEvent): StreamDelta | undefined {
    const d = e.delta;
    if (d?.type === "text_delta" && d.text) return { content: d.text };
    if (d?.type !== "input_json_delta" || !d.partial_json) return undefined;
    const index = this.tools.get(e.index ?? -1);
    if (index === undefined) throw new Error("anthropic stream: input_json_delta outside a tool_use block");
    return { tool_calls: [{ index, function: { arguments: d.partial_json } }] };
  }

  private messageDelta(e: WireEvent): StreamDelta | undefined {
    this.keepUsage(e.usage);
    const out: StreamDelta = {};
    const reason = finishReason(e.delta?.stop_reason);
    if (reason) out.finish_reason = reason;
    const usage = usageOf(this.usage);
    if (usage) out.usage = usage;
    return out.finish_reason || out.usage ? out : undefined;
  }
}
