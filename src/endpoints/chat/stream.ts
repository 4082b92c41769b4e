/**
 * The client side of a stream: chat.completion.chunk events framed as SSE and written to a
 * sink (the node:http response) as they come, waiting when the client reads slower than the
 * upstream sends. The chunk envelope is serialised once per stream; each event serialises
 * only its choice. A `finish_reason` is held until the upstream ends so that chunk also
 * carries the usage (docs/http.md). A failure after the first byte is one error event and
 * no `[DONE]`. A client that goes away stops the stream (and so the upstream request).
 */
import { finishFor } from "./render.js";
import type { StreamDelta } from "../../plugin/contract.js";
import type { Usage } from "../../core/chat-request.js";
import { usageOut } from "./usage-out.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";

export interface StreamOptions {
  id: string;
  created: number;
  model: string;
  requestId: string;
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  /** Fills in usage when the upstream sent none (estimated), before the final chunk. */
  estimate(text: string): Promise<Usage>;
  /** Validates and bounds a reported usage; throws on counts that are not counts. */
  checkUsage?(usage: Usage): Usage;
  /** `server.compat` openai: refusal and logprobs deltas, `content_filter` shown as itself. */
  openai?: boolean;
  /** The charge of the final usage as a USD decimal, when the request asked `usage: {include: true}` (docs/routing.md). */
  cost?(usage: Usage): string;
  /** Kept up to date with the text delivered so far (the in-flight journal reads it). */
  delivered?: { text: string };
}

/** Streams every delta to the sink; resolves when the answer ended, however it ended. */
export async function writeSse(out: SseSink, o: StreamOptions): Promise<StreamResult> {
  const f = new Framer(o);
  try {
    for (let r: IteratorResult<StreamDelta> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      const frame = f.frame(r.value);
      const wait = frame === null ? undefined : out.write(frame);
      if (wait) await wait;
      if (out.signal.aborted) return await cancel(o, f);
    }
    if (f.finishes.size === 0) throw new Error("upstream ended without a finish reason");
    const estimated = !f.usage;
    if (!f.usage) f.usage = await o.estimate(f.text);
    out.end(f.finalFrames());
    return f.result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(o, f); // the abort is what failed the upstream read
    out.end(f.errorFrame(o.requestId));
    return f.result("error", false);
  }
}

/** Closes the adapter's iterator, which closes the upstream body. */
async function cancel(o: StreamOptions, f: Framer): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return f.result("cancelled", false);
}

class Framer {
  readonly finishes = new Map<number, StreamDelta["finish_reason"]>();
  private readonly started = new Set<number>();
  private readonly head: string;
  private readonly openai: boolean;
  private readonly check: (u: Usage) => Usage;
  private readonly cost: ((u: Usage) => string) | undefined;
  usage: Usage | null = null;
  private readonly box: { text: string };

  constructor(o: StreamOptions) {
    this.box = o.delivered ?? { text: "" };
    this.openai = o.openai === true;
    this.check = o.checkUsage ?? ((u) => u);
    this.cost = o.cost;
    this.head = `data: {"id":${JSON.stringify(o.id)},"object":"chat.completion.chunk","created":${o.created},"model":${JSON.stringify(o.model)},"choices":[`;
  }

  /** Text and tool arguments delivered so far. */
  get text(): string {
    return this.box.text;
  }

  set text(value: string) {
    this.box.text = value;
  }

  result(outcome: StreamResult["outcome"], estimated: boolean): StreamResult {
    return { usage: this.usage, estimated, text: this.text, outcome };
  }

  /** One delta as an event, or null when it carries only a finish reason or usage (held). */
  frame(d: StreamDelta): string | null {
    if (d.usage) this.usage = this.check(d.usage);
    const index = d.index ?? 0;
    if (d.finish_reason) this.finishes.set(index, d.finish_reason);
    const refusal = this.openai ? d.refusal : undefined;
    if (d.content === undefined && !d.tool_calls && refusal === undefined) return null;
    const delta: Record<string, unknown> = {};
    if (!this.started.has(index)) ((delta.role = "assistant"), this.started.add(index));
    if (d.content !== undefined) ((delta.content = d.content), (this.text += d.content));
    if (refusal !== undefined) ((delta.refusal = refusal), (this.text += refusal));
    if (d.tool_calls) {
      delta.tool_calls = d.tool_calls;
      for (const t of d.tool_calls) this.text += (t.function?.name ?? "") + (t.function?.arguments ?? "");
    }
    const logprobs = this.openai && d.logprobs !== undefined ? `,"logprobs":${JSON.stringify(d.logprobs)}` : "";
    return `${this.head}${choice(index, delta, null, logprobs)}]}\n\n`;
  }

  /** The held finish reasons, the last one carrying the usage, then [DONE]. */
  finalFrames(): string {
    let out = "";
    let left = this.finishes.size;
    for (const [index, reason] of this.finishes) {
      const usage = --left === 0 ? `,"usage":${JSON.stringify(this.usage && this.usageShown(this.usage))}` : "";
      out += `${this.head}${choice(index, {}, finishFor(reason ?? null, this.openai))}]${usage}}\n\n`;
    }
    return `${out}data: [DONE]\n\n`;
  }

  private usageShown(u: Usage): Usage & { cost?: string } {
    return this.cost ? { ...usageOut(u), cost: this.cost(u) } : usageOut(u);
  }

  errorFrame(requestId: string): string {
    const message = "The upstream stream failed after it started. The answer is incomplete.";
    const error = this.openai
      ? { message, type: "upstream_error", code: "stream_interrupted", param: null, request_id: requestId }
      : { message, type: "upstream_error", code: "stream_interrupted", request_id: requestId };
    return `data: ${JSON.stringify({ error })}\n\n`;
  }
}

function choice(index: number, delta: Record<string, unknown>, finish: string | null, extra = ""): string {
  return `{"index":${index},"delta":${JSON.stringify(delta)}${extra},"finish_reason":${finish === null ? "null" : `"${finish}"`}}`;
}
