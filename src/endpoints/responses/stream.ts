/**
 * A streamed answer as OpenAI's Responses event sequence (openai/openai-openapi
 * `ResponseStreamEvent`; the order as OpenAI sends it, see docs of `ResponseCreatedEvent` ...
 * `ResponseCompletedEvent`): `response.created`, `response.in_progress`, then per output item
 * `output_item.added`, its content part / argument deltas and their `.done` events,
 * `output_item.done`, and last `response.completed` (or `response.incomplete`) carrying the
 * full response with its output and usage. `sequence_number` counts from 0.
 *
 * openai-node's `responses.stream()` helper rebuilds the response from these events and
 * throws on an event it does not know, an index that is not the next one, or an item id that
 * does not match (lib/responses/ResponseStream.ts): only published event names, output items
 * appended in order, every item-scoped event naming its item. A failure after the stream
 * started is a `response.failed` event whose response carries `error` (OAPI ResponseFailedEvent).
 */
import type { StreamDelta, ToolCallDelta } from "../../plugin/contract.js";
import type { FinishReason, Usage } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";
import { customInput, type ToolMap } from "./tools.js";
import {
  argumentsOf,
  callItem,
  finalStatus,
  itemId,
  logprobsOf,
  responseObject,
  type CallOut,
  type MessageOut,
  type OutputItem,
  type ResponseHead,
  type ResponseJson,
} from "./render.js";

export interface ResponsesStreamOptions {
  head: ResponseHead;
  /** The chat tool names in the client's terms: a call comes out as the item of the tool it declared. */
  tools: ToolMap;
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  estimate(text: string): Promise<Usage>;
  checkUsage(usage: Usage): Usage;
  delivered: { text: string };
  now(): number;
  /** Called with the finished response before its terminal event goes out (the store write). */
  finished(response: ResponseJson): void | Promise<void>;
}

const FAILED = "The upstream stream failed after it started. The answer is incomplete.";

export async function writeResponseStream(out: SseSink, o: ResponsesStreamOptions): Promise<StreamResult> {
  const w = new EventWriter(out, o);
  try {
    await w.send("response.created", { response: w.snapshot("in_progress") });
    await w.send("response.in_progress", { response: w.snapshot("in_progress") });
    for (let r: IteratorResult<StreamDelta> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      await w.delta(r.value);
      if (out.signal.aborted) return await cancel(o, w);
    }
    if (w.finish === undefined) throw new Error("upstream ended without a finish reason");
    await w.closeAll();
    const estimated = !w.usage;
    w.usage ??= await o.estimate(o.delivered.text);
    const status = finalStatus(w.finish);
    const response = w.snapshot(status, Math.floor(o.now() / 1000));
    await o.finished(response);
    out.end(w.frame(status === "completed" ? "response.completed" : "response.incomplete", { response }));
    return w.result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(o, w);
    out.end(w.frame("response.failed", { response: w.snapshot("failed", null, { code: "server_error", message: FAILED }) }));
    return w.result("error", false);
  }
}

async function cancel(o: ResponsesStreamOptions, w: EventWriter): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return w.result("cancelled", false);
}

/** A call being streamed: a custom tool's input is sent whole when the call is complete (the model writes it as JSON). */
interface OpenCall {
  item: CallOut;
  index: number;
  args: string;
}

interface OpenMessage {
  item: MessageOut;
  index: number;
  part: "output_text" | "refusal" | null;
}

class EventWriter {
  private seq = 0;
  private readonly output: OutputItem[] = [];
  private message: OpenMessage | null = null;
  /** Open function calls by the upstream's tool-call index. */
  private readonly calls = new Map<number, OpenCall>();
  usage: Usage | null = null;
  finish: FinishReason | undefined;

  constructor(
    private readonly out: SseSink,
    private readonly o: ResponsesStreamOptions,
  ) {}

  frame(type: string, body: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...body })}\n\n`;
  }

  async send(type: string, body: Record<string, unknown>): Promise<void> {
    const wait = this.out.write(this.frame(type, body));
    if (wait) await wait;
  }

  snapshot(
    status: "in_progress" | "completed" | "incomplete" | "failed",
    completedAt: number | null = null,
    error?: { code: "server_error"; message: string },
  ) {
    return responseObject(this.o.head, {
      status,
      output: structuredClone(this.output),
      usage: status === "in_progress" || status === "failed" ? null : this.usage,
      finish: this.finish,
      ...(error && { error }),
      ...(completedAt !== null && { completedAt }),
    });
  }

  result(outcome: StreamResult["outcome"], estimated: boolean): StreamResult {
    return { usage: this.usage, estimated, text: this.o.delivered.text, outcome };
  }

  async delta(d: StreamDelta): Promise<void> {
    if (d.usage) this.usage = this.o.checkUsage(d.usage);
    if ((d.index ?? 0) !== 0) return; // a Responses request asks for one answer
    if (d.finish_reason) this.finish = d.finish_reason;
    if (d.content) await this.text("output_text", d.content, d.logprobs);
    if (d.refusal) await this.text("refusal", d.refusal);
    for (const t of d.tool_calls ?? []) await this.toolCall(t);
  }

  /** Text or refusal into the open message item, opening the item or a new part as needed. */
  private async text(part: "output_text" | "refusal", delta: string, logprobs?: unknown): Promise<void> {
    this.o.delivered.text += delta;
    const m = this.message ?? (await this.openMessage());
    if (m.part !== part) await this.openPart(m, part);
    const at = { item_id: m.item.id, output_index: m.index, content_index: m.item.content.length - 1 };
    const content = m.item.content.at(-1)!;
    if (content.type === "output_text") {
      content.text += delta;
      const lp = logprobsOf(logprobs);
      content.logprobs.push(...lp);
      await this.send("response.output_text.delta", { ...at, delta, logprobs: lp });
    } else {
      content.refusal += delta;
      await this.send("response.refusal.delta", { ...at, delta });
    }
  }

  private async openMessage(): Promise<OpenMessage> {
    const item: MessageOut = { type: "message", id: itemId(this.o.head, "msg", this.output.length), role: "assistant", status: "in_progress", content: [] };
    const m: OpenMessage = { item, index: this.output.length, part: null };
    this.output.push(item);
    this.message = m;
    await this.send("response.output_item.added", { output_index: m.index, item: structuredClone(item) });
    return m;
  }

  private async openPart(m: OpenMessage, part: "output_text" | "refusal"): Promise<void> {
    if (m.part) await this.closePart(m);
    const content = part === "output_text" ? { type: part, text: "", annotations: [], logprobs: [] } : { type: part, refusal: "" };
    m.item.content.push(content);
    m.part = part;
    await this.send("response.content_part.added", {
      item_id: m.item.id,
      output_index: m.index,
      content_index: m.item.content.length - 1,
      part: structuredClone(content),
    });
  }

  private async closePart(m: OpenMessage): Promise<void> {
    const content = m.item.content.at(-1)!;
    const at = { item_id: m.item.id, output_index: m.index, content_index: m.item.content.length - 1 };
    if (content.type === "output_text") await this.send("response.output_text.done", { ...at, text: content.text, logprobs: content.logprobs });
    else await this.send("response.refusal.done", { ...at, refusal: content.refusal });
    await this.send("response.content_part.done", { ...at, part: structuredClone(content) });
    m.part = null;
  }

  private async closeMessage(): Promise<void> {
    const m = this.message;
    if (!m) return;
    this.message = null;
    if (m.part) await this.closePart(m);
    m.item.status = finalStatus(this.finish) === "incomplete" ? "incomplete" : "completed";
    await this.send("response.output_item.done", { output_index: m.index, item: structuredClone(m.item) });
  }

  /** A call's first fragment opens its item (closing the text before it); later ones add arguments. */
  private async toolCall(t: ToolCallDelta): Promise<void> {
    let call = this.calls.get(t.index);
    if (!call) {
      await this.closeMessage();
      const id = t.id ?? `call_${this.o.head.id.slice(5)}${t.index}`;
      const item = callItem(this.o.head, this.o.tools, this.output.length, { id, name: t.function?.name ?? "", arguments: "" }, "in_progress");
      if (item.type === "function_call") item.arguments = "";
      call = { item, index: this.output.length, args: "" };
      this.output.push(item);
      this.calls.set(t.index, call);
      this.o.delivered.text += item.name;
      await this.send("response.output_item.added", { output_index: call.index, item: structuredClone(item) });
    }
    const delta = t.function?.arguments;
    if (!delta) return;
    call.args += delta;
    this.o.delivered.text += delta;
    if (call.item.type !== "function_call") return;
    call.item.arguments += delta;
    await this.send("response.function_call_arguments.delta", { item_id: call.item.id, output_index: call.index, delta });
  }

  /** Every open item done, in output order. */
  async closeAll(): Promise<void> {
    await this.closeMessage();
    for (const call of [...this.calls.values()].sort((a, b) => a.index - b.index)) await this.closeCall(call);
    this.calls.clear();
  }

  private async closeCall({ item, index, args }: OpenCall): Promise<void> {
    const at = { item_id: item.id, output_index: index };
    item.status = "completed";
    if (item.type === "function_call") {
      item.arguments = argumentsOf(item.arguments);
      await this.send("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
    } else {
      item.input = customInput(args);
      await this.send("response.custom_tool_call_input.delta", { ...at, delta: item.input });
      await this.send("response.custom_tool_call_input.done", { ...at, input: item.input });
    }
    await this.send("response.output_item.done", { output_index: index, item: structuredClone(item) });
  }
}
