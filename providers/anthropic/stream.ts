/**
 * Anthropic's named SSE events (https://docs.anthropic.com/en/docs/build-with-claude/streaming)
 * into StreamDeltas. Each tool_use block is the next tool call (0-based among tool calls): its
 * first fragment carries id, type, name and arguments "", then each input_json_delta is an
 * arguments fragment; a block that stops without any input gets "{}" so the client's assembled
 * arguments always parse. With a forced JSON tool (json-output.ts) its input fragments are the
 * content instead. Thinking blocks (thinking_delta, signature_delta) are not sent, nor are server
 * tool blocks (`server_tool_use`, `web_fetch_tool_result`, ...): Anthropic ran those tools itself,
 * so they are no tool call of the client's; their input_json_delta fragments are skipped, and the
 * text blocks around them stream as usual (docs/limits.md, "A complete answer"). Usage is kept
 * from message_start, updated by every message_delta (its counts are cumulative), and sent with
 * the finish reason: after all content, so it never commits a stream that could still fail over.
 */
import { readAnswer, upstreamFailure, type StreamDelta, type UpstreamEvent } from "../../src/plugin/contract.js";
import { eventSchema, type WireEvent, type WireUsage } from "./answer-schema.js";
import { finishReason, usageOf } from "./response.js";
import { fromAnthropicId } from "./tool-ids.js";

type EventOf<T extends WireEvent["type"]> = Extract<WireEvent, { type: T }>;

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

/** One stream's translator (the plugin's `streamEvents`): message_stop ends the answer. */
export function eventTranslator(jsonTool?: string): (event: UpstreamEvent, emit: (delta: StreamDelta) => void) => boolean | void {
  const state = new StreamState(jsonTool);
  return (event, emit) => {
    const data = readAnswer(eventSchema, event.data, "anthropic stream event");
    if (data.type === "message_stop") return true;
    // The provider's own failure (overloaded_error): the core fails over (before the first delta)
    // or ends the client stream with an error event.
    if (data.type === "error") throw upstreamFailure("failure", { retryable: true, detail: `anthropic stream error: ${data.error.type}` });
    const delta = state.step(data);
    if (delta) emit(delta);
  };
}

/** An open tool_use block: the tool call it is (or the JSON answer), and whether input was sent. */
interface ToolBlock {
  call?: number;
  sent: boolean;
}

class StreamState {
  private usage: WireUsage = {};
  /** Content block index -> its tool call. */
  private tools = new Map<number, ToolBlock>();
  private calls = 0;

  constructor(private readonly jsonTool: string | undefined) {}

  step(e: WireEvent): StreamDelta | undefined {
    if (e.type === "message_start") this.keepUsage(e.message.usage);
    else if (e.type === "content_block_start") return this.blockStart(e);
    else if (e.type === "content_block_delta") return this.blockDelta(e);
    else if (e.type === "content_block_stop") return this.blockStop(e);
    else if (e.type === "message_delta") return this.messageDelta(e);
    // ping and event types added later carry nothing for us.
    return undefined;
  }

  private keepUsage(u: WireUsage | null | undefined): void {
    for (const key of USAGE_KEYS) {
      const value = u?.[key];
      if (typeof value === "number") this.usage[key] = value;
    }
    if (u?.server_tool_use) this.usage.server_tool_use = u.server_tool_use; // cumulative, as the counts
  }

  private blockStart(e: EventOf<"content_block_start">): StreamDelta | undefined {
    const block = e.content_block;
    if (block.type === "text" && block.text && !this.jsonTool) return { content: block.text };
    if (block.type !== "tool_use") return undefined;
    if (this.jsonTool && block.name === this.jsonTool) {
      this.tools.set(e.index, { sent: false });
      return undefined;
    }
    const index = this.calls++;
    this.tools.set(e.index, { call: index, sent: false });
    return { tool_calls: [{ index, id: fromAnthropicId(block.id), type: "function", function: { name: block.name, arguments: "" } }] };
  }

  private blockDelta(e: EventOf<"content_block_delta">): StreamDelta | undefined {
    const d = e.delta;
    if (d.type === "text_delta" && d.text) return this.jsonTool ? undefined : { content: d.text };
    if (d.type !== "input_json_delta" || !d.partial_json) return undefined;
    const tool = this.tools.get(e.index);
    if (!tool) return undefined; // a server tool's input: Anthropic's to run, not the client's
    tool.sent = true;
    return this.input(tool, d.partial_json);
  }

  /** A tool_use block that ends without input had no arguments: "{}", never "". */
  private blockStop(e: EventOf<"content_block_stop">): StreamDelta | undefined {
    const tool = this.tools.get(e.index);
    if (!tool || tool.sent) return undefined;
    tool.sent = true;
    return this.input(tool, "{}");
  }

  private input(tool: ToolBlock, json: string): StreamDelta {
    if (tool.call === undefined) return { content: json };
    return { tool_calls: [{ index: tool.call, function: { arguments: json } }] };
  }

  private messageDelta(e: EventOf<"message_delta">): StreamDelta | undefined {
    this.keepUsage(e.usage);
    const out: StreamDelta = {};
    const reason = finishReason(e.delta.stop_reason, this.jsonTool);
    if (reason) out.finish_reason = reason;
    const usage = usageOf(this.usage);
    if (usage) out.usage = usage;
    return out.finish_reason || out.usage ? out : undefined;
  }
}
