/**
 * The native path (docs/gemini.md): on an endpoint whose plugin speaks Gemini
 * (`nativeGemini`, providers/google/native.ts) the client's body goes upstream byte for byte
 * and the answer, or each stream chunk, comes back as Google sent it. The gateway reads only
 * the usage (billed exactly, cached and thought tokens at their prices) and the text (for an
 * estimate when a stream is cut before its usage).
 */
import { outputBudget } from "../../billing/bill.js";
import { checkedUsage } from "../../billing/usage-check.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import type { ChatRequest, ToolCalls, Usage } from "../../core/chat-request.js";
import type { Gateway } from "../../gateway.js";
import type { SseSink } from "../../http/sse.js";
import type { Job, StreamResult } from "../../pipeline/endpoint.js";
import { malformed } from "../../pipeline/failover.js";
import type { CallContext, NativeGemini, UpstreamEvent } from "../../plugin/contract.js";
import { readJson } from "../../upstream/body.js";
import { decodeSse } from "../../upstream/relay.js";
import { dataFrame, errorFrame } from "./stream.js";

export interface NativeAnswer {
  json: unknown;
  usage?: Usage;
  text: string;
}

function contextFor(job: Job<ChatRequest>, e: RoutedEndpoint, stream: boolean): CallContext {
  return { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream, maxOutput: outputBudget(job.body, job.route) };
}

/** One generateContent attempt on a native endpoint. */
export async function nativeAnswer(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, raw: string, candidates: number, signal: AbortSignal) {
  const plugin = e.instance.plugin;
  const res = await gw.upstream.send(plugin.nativeGemini!.request(raw, contextFor(job, e, false)), plugin, signal);
  const json = await readJson(res.body, gw.config.server.upstream.maxResponseBytes);
  try {
    const read = plugin.nativeGemini!.read(json);
    const answer: NativeAnswer = { json, text: read.text };
    if (read.usage) answer.usage = checkedUsage(read.usage, job.route.model, candidates);
    return answer;
  } catch (err) {
    throw malformed(err);
  }
}

export interface NativeStream {
  native: NativeGemini;
  first: UpstreamEvent;
  rest: AsyncIterator<UpstreamEvent>;
}

/** One streamGenerateContent attempt, open up to its headers: Google's chunks, SSE-decoded. */
export async function openNativeStream(
  gw: Gateway,
  job: Job<ChatRequest>,
  e: RoutedEndpoint,
  raw: string,
  signal: AbortSignal,
): Promise<AsyncIterator<UpstreamEvent>> {
  const plugin = e.instance.plugin;
  const res = await gw.upstream.send(plugin.nativeGemini!.request(raw, contextFor(job, e, true)), plugin, signal);
  return decodeSse(res.body, gw.config.server.upstream)[Symbol.asyncIterator]();
}

export interface NativeStreamOptions {
  requestId: string;
  delivered: { text: string };
  estimate(text: string): Promise<Usage>;
  checkUsage(usage: Usage): Usage;
}

/** Every chunk as Google sent it; its error event or a failure to read becomes the gateway's error event (errors.ts). */
export async function relayNativeStream(out: SseSink, s: NativeStream, o: NativeStreamOptions): Promise<StreamResult> {
  let usage: Usage | null = null;
  let searched: ToolCalls | undefined; // grounding may come on another chunk than the usage: the last seen joins it
  const result = (outcome: StreamResult["outcome"], estimated = false): StreamResult => ({ usage, estimated, text: o.delivered.text, outcome });
  try {
    for (let r: IteratorResult<UpstreamEvent> = { done: false, value: s.first }; !r.done; r = await s.rest.next()) {
      if (isError(r.value.data)) throw new Error("error event in the upstream stream");
      const read = s.native.read(r.value.data);
      searched = read.toolCalls ?? searched;
      if (read.usage) usage = o.checkUsage(read.usage);
      if (usage && searched) usage = o.checkUsage({ ...usage, tool_calls: searched });
      o.delivered.text += read.text;
      const wait = out.write(dataFrame(r.value.data));
      if (wait) await wait;
      if (out.signal.aborted) return await cancel(s, result);
    }
    const estimated = !usage;
    usage ??= await o.estimate(o.delivered.text);
    out.end("");
    return result("ok", estimated);
  } catch {
    if (out.signal.aborted) return await cancel(s, result);
    out.end(errorFrame(o.requestId));
    return result("error");
  }
}

/** Google's error chunk: at the start of a stream, failed over; later, the gateway's error event. */
export function isError(data: unknown): boolean {
  return typeof data === "object" && data !== null && "error" in data;
}

async function cancel(s: NativeStream, result: (outcome: StreamResult["outcome"]) => StreamResult): Promise<StreamResult> {
  try {
    await s.rest.return?.();
  } catch {
    // already failed: the upstream request was aborted with the client
  }
  return result("cancelled");
}
