/**
 * A native stream relayed (docs/messages.md): each of the provider's Messages events goes to
 * the client as it came, with its `event:` line, but for the message id in message_start.
 * Usage is read on the way from message_start and message_delta (their counts are cumulative:
 * the last one seen wins) for billing. A provider `error` event, or a stream that ends without
 * message_stop, after the first byte ends the stream with the gateway's `event: error`.
 */
import type { Usage } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";
import type { NativeMessages, UpstreamEvent } from "../../plugin/contract.js";
import { errorEvent } from "./frames.js";

export interface RelayOptions {
  id: string;
  requestId: string;
  first: UpstreamEvent;
  rest: AsyncIterator<UpstreamEvent>;
  native: NativeMessages;
  checkUsage(usage: Usage): Usage;
  estimate(text: string): Promise<Usage>;
  delivered: { text: string };
}

/** An event's data as read here: the fields below are the Messages API's, checked where used. */
interface Data {
  type?: unknown;
  message?: { id?: unknown; usage?: unknown };
  usage?: unknown;
  content_block?: { name?: unknown };
  delta?: { text?: unknown; partial_json?: unknown; thinking?: unknown };
}

export async function relayNative(out: SseSink, o: RelayOptions): Promise<StreamResult> {
  const usage: Record<string, unknown> = {};
  const result = (outcome: StreamResult["outcome"], u: Usage | null, estimated = false): StreamResult => ({
    usage: u,
    estimated,
    text: o.delivered.text,
    outcome,
  });
  const reported = () => {
    const u = Object.keys(usage).length ? o.native.usage(usage) : undefined;
    return u ? o.checkUsage(u) : null;
  };
  // After a failure, usage that is not a count is no usage: what was delivered is billed on an estimate.
  const reportedOrNone = () => {
    try {
      return reported();
    } catch {
      return null;
    }
  };
  try {
    for (let r: IteratorResult<UpstreamEvent> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      const data = r.value.data as Data;
      const type = typeof data?.type === "string" ? data.type : (r.value.event ?? "message");
      if (type === "error") throw new Error("the provider's stream failed");
      see(type, data, usage, o);
      const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
      if (type === "message_stop") {
        const u = reported();
        const final = u ?? (await o.estimate(o.delivered.text));
        out.end(frame);
        return result("ok", final, !u);
      }
      const wait = out.write(frame);
      if (wait) await wait;
      if (out.signal.aborted) return await cancel(o, result("cancelled", reported()));
    }
    throw new Error("the provider's stream ended without message_stop");
  } catch {
    if (out.signal.aborted) return await cancel(o, result("cancelled", reportedOrNone()));
    out.end(errorEvent(o.requestId));
    return result("error", reportedOrNone());
  }
}

/** What an event tells the gateway: the message id replaced, usage kept, delivered text counted. */
function see(type: string, data: Data, usage: Record<string, unknown>, o: RelayOptions): void {
  if (type === "message_start" && data.message) {
    data.message.id = o.id;
    Object.assign(usage, definedOf(data.message.usage));
  } else if (type === "message_delta") Object.assign(usage, definedOf(data.usage));
  else if (type === "content_block_start") o.delivered.text += stringOf(data.content_block?.name);
  else if (type === "content_block_delta") o.delivered.text += stringOf(data.delta?.text ?? data.delta?.partial_json ?? data.delta?.thinking);
}

const stringOf = (v: unknown) => (typeof v === "string" ? v : "");

function definedOf(u: unknown): Record<string, unknown> {
  if (!u || typeof u !== "object") return {};
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== null && v !== undefined));
}

async function cancel(o: RelayOptions, r: StreamResult): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return r;
}
