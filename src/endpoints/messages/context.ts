/**
 * What a Messages request is beyond its chat form (the pipeline's request for this endpoint,
 * as for Responses): the client's body as it came (the native path sends it), the validated
 * request, the headers forwarded natively, the translation's problems and the prompt's bound.
 */
import type { ChatRequest } from "../../core/chat-request.js";
import type { GatewayError } from "../../core/errors.js";
import type { Job } from "../../pipeline/endpoint.js";
import type { MessagesHeaders } from "../../plugin/contract.js";
import type { MessagesRequest } from "./schema.js";

export interface MessagesContext {
  /** The body as the client sent it (JSON-parsed, untouched). */
  raw: Record<string, unknown>;
  req: MessagesRequest;
  headers: MessagesHeaders;
  problems: GatewayError[];
  /** An upper bound on prompt tokens: the body's bytes, images counted at their token cost. */
  promptBound: number;
}

const contexts = new WeakMap<ChatRequest, MessagesContext>();

export function remember(chat: ChatRequest, ctx: MessagesContext): void {
  contexts.set(chat, ctx);
}

export function contextOf(job: Job<ChatRequest>): MessagesContext {
  return contexts.get(job.body)!;
}

export function contextOfRequest(chat: ChatRequest): MessagesContext {
  return contexts.get(chat)!;
}

export const messageId = (job: Job) => `msg_${job.requestId.slice(4)}`;
