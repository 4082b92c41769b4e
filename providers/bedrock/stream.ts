/**
 * ConverseStream events (already decoded from binary frames) -> StreamDelta.
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * Sequence: messageStart, then per content block [contentBlockStart (tool use only)],
 * contentBlockDelta..., contentBlockStop; then messageStop {stopReason}; then metadata {usage, metrics}.
 * Reasoning deltas (`delta.reasoningContent`) are not forwarded.
 */
import { readAnswer, type StreamDelta, type UpstreamEvent } from "../../src/plugin/contract.js";
import { blockDeltaSchema, blockStartSchema, blockStopSchema, messageStopSchema, metadataSchema, type BlockDelta, type BlockStart } from "./answer-schema.js";
import type { CallState } from "./call-state.js";
import { finishReason, usageOf } from "./response.js";
import { clientId } from "./tool-ids.js";

interface Block {
  call?: number;
  /** Whether any input arrived: a tool without parameters must still end as "{}". */
  filled: boolean;
}

class Reader {
  private blocks = new Map<number, Block>();
  private calls = 0;
  private answered = false;

  constructor(private state: CallState) {}

  step(event: string | undefined, d: unknown): StreamDelta | undefined {
    switch (event) {
      case "contentBlockStart":
        return this.start(readAnswer(blockStartSchema, d, "bedrock contentBlockStart"));
      case "contentBlockDelta":
        return this.delta(readAnswer(blockDeltaSchema, d, "bedrock contentBlockDelta"));
      case "contentBlockStop":
        return this.stop(readAnswer(blockStopSchema, d, "bedrock contentBlockStop").contentBlockIndex);
      case "messageStop": {
        const { stopReason } = readAnswer(messageStopSchema, d, "bedrock messageStop");
        return { index: 0, finish_reason: finishReason(stopReason, this.answered && this.calls === 0) };
      }
      case "metadata": {
        // Sent once, after messageStop: the whole request's usage.
        const usage = usageOf(readAnswer(metadataSchema, d, "bedrock metadata").usage);
        return usage ? { usage } : undefined;
      }
      default:
        return undefined; // messageStart
    }
  }

  /** The first fragment of a call carries id, type, name and arguments "" (what clients' stream helpers expect). */
  private start(d: BlockStart): StreamDelta | undefined {
    const tool = d.start?.toolUse;
    if (!tool?.toolUseId || !tool.name) return undefined;
    if (this.state.jsonTool !== undefined && tool.name === this.state.jsonTool) {
      this.answered = true;
      this.blocks.set(d.contentBlockIndex, { filled: false });
      return undefined; // its input streams as the answer text
    }
    const index = this.calls++;
    this.blocks.set(d.contentBlockIndex, { call: index, filled: false });
    const id = clientId(this.state.ids, tool.toolUseId);
    return { index: 0, tool_calls: [{ index, id, type: "function", function: { name: tool.name, arguments: "" } }] };
  }

  private delta(d: BlockDelta): StreamDelta | undefined {
    if (d.delta.text) return { index: 0, content: d.delta.text };
    const input = d.delta.toolUse?.input;
    const block = this.blocks.get(d.contentBlockIndex);
    if (!input || !block) return undefined;
    block.filled = true;
    return this.piece(block, input);
  }

  private stop(at: number): StreamDelta | undefined {
    const block = this.blocks.get(at);
    this.blocks.delete(at);
    return block && !block.filled ? this.piece(block, "{}") : undefined;
  }

  private piece(block: Block, input: string): StreamDelta {
    if (block.call === undefined) return { index: 0, content: input };
    return { index: 0, tool_calls: [{ index: block.call, function: { arguments: input } }] };
  }
}

export async function* fromConverseStream(events: AsyncIterable<UpstreamEvent>, state: CallState = { ids: new Map() }): AsyncIterable<StreamDelta> {
  const reader = new Reader(state);
  for await (const { event, data } of events) {
    const out = reader.step(event, data);
    if (out) yield out;
  }
}
