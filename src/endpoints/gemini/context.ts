/**
 * What a Gemini request is beyond its chat form (the pipeline's request for this endpoint),
 * from parse to render: the client's body as sent (what a native endpoint receives), the
 * candidates asked for, what only a native endpoint can honour, and whether usage is bounded.
 */
import type { ChatRequest, Usage } from "../../core/chat-request.js";
import { checkedUsage } from "../../billing/usage-check.js";
import { estimate } from "../../pipeline/chat-upstream.js";
import type { Job } from "../../pipeline/endpoint.js";
import type { AnswerHead } from "./render.js";
import type { Problem } from "./translate.js";

export interface GeminiContext {
  /** The body exactly as the client sent it: what a native endpoint receives. */
  raw: string;
  candidates: number;
  /** What only a native endpoint can honour (translate.ts). */
  problems: Problem[];
  /** The request names media or cached content the gateway cannot measure: usage is not bounded by the body. */
  unbounded: boolean;
}

const contexts = new WeakMap<ChatRequest, GeminiContext>();

export const remember = (req: ChatRequest, ctx: GeminiContext): void => void contexts.set(req, ctx);

export const contextOf = (req: ChatRequest): GeminiContext => contexts.get(req)!;

export const headOf = (job: Job<ChatRequest>): AnswerHead => ({ modelVersion: job.route.model.id, responseId: job.requestId.slice(4) });

/** What both stream writers take: the request's id, what was delivered, the estimate and the usage check (per candidate). */
export function streamCommon(job: Job<ChatRequest>, delivered: { text: string }) {
  return {
    requestId: job.requestId,
    delivered,
    estimate: (text: string) => estimate(job.body, text),
    checkUsage: (u: Usage) => checkedUsage(u, job.route.model, contextOf(job.body).candidates),
  };
}
