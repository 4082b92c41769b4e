/**
 * ConverseStream events (already decoded from binary frames) -> StreamDelta.
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * Sequence: messageStart, then per content block [contentBlockStart (tool use only)],
 * contentBlockDelta..., contentBlockStop; then messageStop {stopReason}; then metadata {usage, metrics}.
 */
import type { StreamDelta, UpstreamEvent } from "../../src/provider.js";
import { finishReason, usageOf, type WireUsage } from "./response.js";

interface EventData {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: { text?: string; toolUse?: { input?: string } };
  stopReason?: string;
  usage?: WireUsage;
}

/** Content block index -> OpenAI tool-call index (tool calls are numbered 0, 1, ... in order). */
type ToolIndex = Map<number, number>;

function started(d: EventData, tools: ToolIndex): StreamDelta | undefined {
  const tool = d.start?.toolUse;
  if (!tool?.toolUseId || !tool.name) return undefined;
  const index = tools.size;
  tools.set(d.contentBlockIndex ?? index, index);
  return { index: 0, tool_calls: [{ index, id: tool.toolUseId, type: "function", function: { name: tool.name, arguments: "" } }] };
}

function delta(d: EventData, tools: ToolIndex): StreamDelta | undefined {
  if (d.delta?.text) return { index: 0, content: d.delta.text };
  const input = d.delta?.toolUse?.input;
  const index = tools.get(d.contentBlockIndex ?? -1);
  if (!input || index === undefined) return undefined; // reasoning deltas and the like are not forwarded
  return { index: 0, tool_calls: [{ index, function: { arguments: input } }] };
}

function step(event: string | undefined, d: EventData, tools: ToolIndex): StreamDelta | undefined {
  switch (event) {
    case "contentBlockStart":
      return started(d, tools);
    case "contentBlockDelta":
      return delta(d, tools);
    case "messageStop":
      return { index: 0, finish_reason: finishReason(d.stopReason) };
    case "metadata": {
      // Sent once, after messageStop: the whole request's usage.
      const usage = usageOf(d.usage);
      return usage ? { usage } : undefined;
    }
    default:
      return undefined; // messageStart, contentBlockStop
  }
}

export async function* fromConverseStream(events: AsyncIterable<UpstreamEvent>): AsyncIterable<StreamDelta> {
  const tools: ToolIndex = new Map();
  for await (const { event, data } of events) {
    const out = step(event, (data ?? {}) as EventData, tools);
    if (out) yield out;
  }
}
