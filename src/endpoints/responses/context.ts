/**
 * What a Responses request is beyond its chat form, kept from its parse stage to its render
 * stage (endpoints/responses/route.ts), keyed by the chat form (the pipeline's request).
 */
import type { ChatRequest } from "../../core/chat-request.js";
import type { EndpointServices, Job } from "../../pipeline/endpoint.js";
import type { ResponseHead } from "./render.js";
import type { InputItem, ResponsesRequest } from "./schema.js";
import type { ToolMap } from "./tools.js";

export interface ResponsesContext {
  req: ResponsesRequest;
  account: string;
  /** The stored chain's items (previous_response_id), oldest first. */
  history: InputItem[];
  input: InputItem[];
  createdAt: number;
  /** The chat tool names the model may call, in the client's terms (endpoints/responses/tools.ts). */
  tools: ToolMap;
  /** Hosted tools a translated route leaves out (`tools.web_search`, ...): X-Gateway-Ignored. */
  ignored: string[];
  /** `server.compat: strict`: a hosted tool on a translated route is a 400 instead. */
  strict: boolean;
}

const contexts = new WeakMap<ChatRequest, ResponsesContext>();

export function keepContext(chat: ChatRequest, ctx: ResponsesContext): void {
  contexts.set(chat, ctx);
}

export function contextOf(job: Job<ChatRequest>): ResponsesContext {
  return contexts.get(job.body)!;
}

export function contextOfRequest(chat: ChatRequest): ResponsesContext {
  return contexts.get(chat)!;
}

export function headOf(job: Job<ChatRequest>): ResponseHead {
  const { req, createdAt } = contextOf(job);
  return {
    id: `resp_${job.requestId.slice(4)}`,
    createdAt: Math.floor(createdAt / 1000),
    model: job.route.model.id,
    req,
    store: req.store ?? true,
  };
}

/** Written before the answer goes out, so the next request can continue from it at once. */
export function save(gw: EndpointServices, job: Job<ChatRequest>, response: { output: unknown[] }): Promise<void> {
  const ctx = contextOf(job);
  const head = headOf(job);
  if (!head.store) return Promise.resolve();
  return gw.store.saveResponse({
    id: head.id,
    account: ctx.account,
    createdAt: ctx.createdAt,
    model: head.model,
    previousId: ctx.req.previous_response_id ?? null,
    items: [...ctx.input, ...response.output],
    response,
  });
}
