/**
 * The native form of /v1/responses (endpoints/responses/native.ts) for the pipeline's native
 * step (pipeline/native.ts): the provider's Responses API called with failover like chat, on
 * a route whose every endpoint has it; its answer billed by its own usage and written back
 * with the gateway's id, its events relayed (native-stream.ts).
 */
import type { Usage } from "../../core/chat-request.js";
import type { Exchange } from "../../http/exchange.js";
import type { EndpointServices, Job, NativePath } from "../../pipeline/endpoint.js";
import { checkedUsage } from "../../billing/usage-check.js";
import type { ChatRequest, Completion } from "../../plugin/contract.js";
import { contextOf, headOf, save } from "./context.js";
import { asGateways, nativeBody, readNative, usageOf, type NativeHead, type NativeResponse } from "./native.js";
import { relayNativeStream } from "./native-stream.js";

/** The answer of a native call: no chat choices, the provider's response kept whole. */
export type ResponsesAnswer = Completion & { native?: NativeResponse };

function nativeHead(job: Job<ChatRequest>): NativeHead {
  const head = headOf(job);
  return { id: head.id, model: head.model, store: head.store, previousId: head.req.previous_response_id ?? null };
}

export const RESPONSES_NATIVE: NativePath<ResponsesAnswer, "responses"> = {
  api: "responses",
  wholeRoute: true,
  request(n, job, ctx) {
    const { req, history, input } = contextOf(job);
    return n.request({ ...nativeBody(req, history, input, ctx.stream), model: ctx.model }, ctx);
  },
  answer(_n, job, json) {
    const native = readNative(json);
    const usage = usageOf(native);
    return { choices: [], native, ...(usage && { usage: checkedUsage(usage, job.route.model, 1) }) };
  },
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

export async function renderNative(gw: EndpointServices, ex: Exchange, job: Job<ChatRequest>, native: NativeResponse, usage: Usage): Promise<void> {
  const response = asGateways(native, nativeHead(job), usage);
  await save(gw, job, response);
  ex.json(200, JSON.stringify(response));
}
