/**
 * The adapter, render and stream stages of /v1/responses on a native route
 * (endpoints/responses/native.ts): the provider's Responses API called with failover like
 * chat, its answer billed by its own usage and written back with the gateway's id.
 */
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import type { Usage } from "../../core/chat-request.js";
import type { Gateway } from "../../gateway.js";
import type { Exchange } from "../../http/exchange.js";
import type { Job, NativeEvents } from "../../pipeline/endpoint.js";
import { malformed } from "../../pipeline/failover.js";
import { checkedUsage } from "../../billing/usage-check.js";
import type { ChatRequest, Completion, UpstreamEvent } from "../../plugin/contract.js";
import { contextOf, headOf, save } from "./context.js";
import { asGateways, isNative, nativeBody, nativeEvents, readNative, sendNative, usageOf, type NativeHead, type NativeResponse } from "./native.js";
import { relayNativeStream } from "./native-stream.js";

/** The answer of a native call: no chat choices, the provider's response kept whole. */
export type ResponsesAnswer = Completion & { native?: NativeResponse };

function bodyFor(job: Job<ChatRequest>, stream: boolean): Record<string, unknown> {
  const { req, history, input } = contextOf(job);
  return nativeBody(req, history, input, stream);
}

function nativeHead(job: Job<ChatRequest>): NativeHead {
  const head = headOf(job);
  return { id: head.id, model: head.model, store: head.store, previousId: head.req.previous_response_id ?? null };
}

export async function nativeAdapter(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal): Promise<ResponsesAnswer> {
  const res = await sendNative(gw, job, e, bodyFor(job, false), signal);
  try {
    const native = await readNative(gw, res);
    const usage = usageOf(native);
    return { choices: [], native, ...(usage && { usage: checkedUsage(usage, job.route.model, 1) }) };
  } catch (err) {
    throw malformed(err);
  }
}

export async function renderNative(gw: Gateway, ex: Exchange, job: Job<ChatRequest>, native: NativeResponse, usage: Usage): Promise<void> {
  const response = asGateways(native, nativeHead(job), usage);
  await save(gw, job, response);
  ex.json(200, JSON.stringify(response));
}

async function openNative(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal): Promise<AsyncIterator<UpstreamEvent>> {
  return nativeEvents(gw, await sendNative(gw, job, e, bodyFor(job, true), signal));
}

/** The native events of a route served natively, relayed (native-stream.ts). */
export const NATIVE_EVENTS: NativeEvents = {
  open: (gw, job, e, signal) => (isNative(job.route) ? openNative(gw, job, e, signal) : undefined),
  relay: (gw, ex, job, opened, delivered) =>
    relayNativeStream(ex, {
      head: nativeHead(job),
      first: opened.first,
      rest: opened.rest,
      delivered,
      checkUsage: (u) => checkedUsage(u, job.route.model, 1),
      finished: (response) => save(gw, job, response),
    }),
};
