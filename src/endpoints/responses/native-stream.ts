/**
 * A native Responses stream (endpoints/responses/native.ts) relayed event by event, each with
 * its `event:` line as the provider sent it. Only the events that carry the response object
 * (`response.created`, `.in_progress`, `.completed`, `.incomplete`, `.failed`) change: the
 * gateway's id, model, store flag and chain, and on the terminal one the billed usage. The
 * response is stored before its terminal event goes out, as on the translated path.
 */
import type { Usage } from "../../core/chat-request.js";
import type { SseSink } from "../../http/sse.js";
import type { StreamResult } from "../../pipeline/endpoint.js";
import type { UpstreamEvent } from "../../plugin/contract.js";
import { asGateways, usageOf, type NativeHead, type NativeResponse } from "./native.js";

export interface NativeStreamOptions {
  head: NativeHead;
  first: UpstreamEvent;
  rest: AsyncIterator<UpstreamEvent>;
  delivered: { text: string };
  checkUsage(usage: Usage): Usage;
  finished(response: { output: unknown[] }): void | Promise<void>;
}

const TERMINAL = new Set(["response.completed", "response.incomplete"]);
const FAILED = new Set(["response.failed", "error"]);

type EventData = Record<string, unknown> & { type?: unknown; response?: unknown; delta?: unknown };

export async function relayNativeStream(out: SseSink, o: NativeStreamOptions): Promise<StreamResult> {
  let usage: Usage | null = null;
  let outcome: StreamResult["outcome"] = "error";
  let ended = false; // a terminal event went out
  let seq = -1;
  try {
    for (let r: IteratorResult<UpstreamEvent> = { done: false, value: o.first }; !r.done; r = await o.rest.next()) {
      const data = r.value.data as EventData | null;
      if (!data || typeof data !== "object") continue;
      if (typeof data.sequence_number === "number") seq = data.sequence_number;
      const type = typeof data.type === "string" ? data.type : (r.value.event ?? "message");
      if (typeof data.delta === "string") o.delivered.text += data.delta;
      if (data.response && typeof data.response === "object") {
        const response = data.response as Record<string, unknown>;
        if (TERMINAL.has(type)) {
          const reported = usageOf(response as NativeResponse);
          usage = reported ? o.checkUsage(reported) : null;
        }
        data.response = asGateways(response, o.head, TERMINAL.has(type) ? usage : null);
        if (TERMINAL.has(type)) await o.finished(data.response as { output: unknown[] });
      }
      const wait = out.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      if (wait) await wait;
      if (out.signal.aborted) return await cancelled(o, usage);
      if (TERMINAL.has(type)) outcome = "ok";
      if (FAILED.has(type)) outcome = "error";
      if (TERMINAL.has(type) || FAILED.has(type)) ended = true;
    }
  } catch {
    if (out.signal.aborted) return await cancelled(o, usage);
    outcome = "error";
  }
  // Cut before its terminal event: the client gets `response.failed`, as on the translated path.
  out.end(ended ? "" : failedFrame(o.head, seq + 1));
  return { usage, estimated: false, text: o.delivered.text, outcome };
}

function failedFrame(head: NativeHead, sequence: number): string {
  const error = { code: "server_error", message: "The upstream stream failed after it started. The answer is incomplete." };
  const response = { id: head.id, object: "response", status: "failed", model: head.model, error, usage: null };
  return `event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", sequence_number: sequence, response })}\n\n`;
}

async function cancelled(o: NativeStreamOptions, usage: Usage | null): Promise<StreamResult> {
  try {
    await o.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return { usage, estimated: false, text: o.delivered.text, outcome: "cancelled" };
}
