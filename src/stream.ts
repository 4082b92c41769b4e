/**
 * The client side of a stream: chat.completion.chunk events framed as SSE. The chunk
 * envelope is serialised once per stream; each event serialises only its choice. A
 * `finish_reason` is held until the upstream ends so that chunk also carries the usage
 * (contract.md §4). A failure after the first byte is one error event and no `[DONE]`.
 */
import type { StreamDelta } from "./provider.js";
import type { Usage } from "./schema.js";

export interface StreamResult {
  usage: Usage | null;
  /** Text and tool arguments delivered, for estimating usage when the upstream gave none. */
  text: string;
  outcome: "ok" | "error" | "cancelled";
}

export interface StreamOptions {
  id: string;
  created: number;
  model: string;
  requestId: string;
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  /** Fills in usage when the upstream sent none (estimated), before the final chunk. */
  estimate(text: string): Promise<Usage>;
  onEnd(result: StreamResult): void;
}

const encoder = new TextEncoder();

export function sseStream(o: StreamOptions): ReadableStream<Uint8Array> {
  const head = `data: {"id":${JSON.stringify(o.id)},"object":"chat.completion.chunk","created":${o.created},"model":${JSON.stringify(o.model)},"choices":[`;
  const finishes = new Map<number, StreamDelta["finish_reason"]>();
  const started = new Set<number>();
  let usage: Usage | null = null;
  let text = "";
  let ended = false;

  const end = (outcome: StreamResult["outcome"]) => {
    if (ended) return;
    ended = true;
    o.onEnd({ usage, text, outcome });
  };

  const choice = (index: number, delta: Record<string, unknown>, finish: string | null) =>
    `{"index":${index},"delta":${JSON.stringify(delta)},"finish_reason":${finish === null ? "null" : `"${finish}"`}}`;

  const frame = (d: StreamDelta): string | null => {
    if (d.usage) usage = d.usage;
    const index = d.index ?? 0;
    if (d.finish_reason) finishes.set(index, d.finish_reason);
    if (d.content === undefined && !d.tool_calls) return null;
    const delta: Record<string, unknown> = {};
    if (!started.has(index)) (delta.role = "assistant"), started.add(index);
    if (d.content !== undefined) (delta.content = d.content), (text += d.content);
    if (d.tool_calls) {
      delta.tool_calls = d.tool_calls;
      for (const t of d.tool_calls) text += (t.function?.name ?? "") + (t.function?.arguments ?? "");
    }
    return `${head}${choice(index, delta, null)}]}\n\n`;
  };

  const finalFrames = async (): Promise<string> => {
    if (!usage) usage = await o.estimate(text);
    const entries = [...finishes.entries()];
    return entries
      .map(([index, reason], i) => {
        const last = i === entries.length - 1;
        return `${head}${choice(index, {}, reason ?? null)}]${last ? `,"usage":${JSON.stringify(usage)}` : ""}}\n\n`;
      })
      .join("") + "data: [DONE]\n\n";
  };

  const errorFrame = () =>
    `data: ${JSON.stringify({ error: { message: "The upstream stream failed after it started. The answer is incomplete.", type: "upstream_error", code: "stream_interrupted", request_id: o.requestId } })}\n\n`;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (s: string | null) => s && controller.enqueue(encoder.encode(s));
      try {
        send(frame(o.first));
        for (let r = await o.rest.next(); !r.done; r = await o.rest.next()) send(frame(r.value));
        if (ended) return;
        if (finishes.size === 0) throw new Error("upstream ended without a finish reason");
        send(await finalFrames());
        controller.close();
        end("ok");
      } catch {
        if (ended) return; // the client went away: cancel() already settled
        send(errorFrame());
        controller.close();
        end("error");
      }
    },
    async cancel() {
      end("cancelled");
      await o.rest.return?.();
    },
  });
}
