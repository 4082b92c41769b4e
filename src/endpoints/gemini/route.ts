/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent through the one
 * request pipeline (pipeline/run.ts), docs/gemini.md. The model and whether to stream come
 * from the path; the body is Google's GenerateContentRequest. Every request is also read into
 * the internal ChatRequest (translate.ts), the pipeline's request for this endpoint: its hold,
 * usage bound and estimates, and the translated path's upstream call. Per attempt the routed
 * endpoint decides: a plugin with `nativeGemini` gets the body as sent (native.ts), any other
 * the chat request through its adapter (pipeline/chat-upstream.ts). Errors in Google's envelope.
 */
import { CHAT_UPSTREAM, estimate } from "../../pipeline/chat-upstream.js";
import type { Endpoint, Job } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import type { ChatRequest, Usage } from "../../core/chat-request.js";
import { checkedUsage } from "../../billing/usage-check.js";
import { invalidRequest } from "../../core/errors.js";
import { MAX_REQUEST_ITEMS, validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import type { Completion } from "../../plugin/contract.js";
import { GEMINI_ROUTES } from "./common.js";
import { isError, nativeAnswer, openNativeStream, relayNativeStream, type NativeAnswer } from "./native.js";
import { geminiPath } from "./path.js";
import { narrowGemini } from "./narrow.js";
import { renderAnswer, type AnswerHead } from "./render.js";
import { GenerateContentRequest } from "./schema.js";
import { writeGeminiStream } from "./stream.js";
import { toChatRequest, type Problem } from "./translate.js";

/** A native answer as Google sent it, or a translated one in chat's form. */
export type GeminiAnswer = { native: NativeAnswer } | { chat: Completion };

/** What a Gemini request is beyond its chat form, from parse to render. */
interface GeminiContext {
  /** The body exactly as the client sent it: what a native endpoint receives. */
  raw: string;
  candidates: number;
  /** What only a native endpoint can honour (translate.ts). */
  problems: Problem[];
  /** The request names media or cached content the gateway cannot measure: usage is not bounded by the body. */
  unbounded: boolean;
}

const contexts = new WeakMap<ChatRequest, GeminiContext>();

const contextOf = (req: ChatRequest): GeminiContext => contexts.get(req)!;

const headOf = (job: Job<ChatRequest>): AnswerHead => ({ modelVersion: job.route.model.id, responseId: job.requestId.slice(4) });

export const GEMINI: Endpoint<ChatRequest, GeminiAnswer> = definesStages("gemini", {
  ...CHAT_UPSTREAM,
  ...GEMINI_ROUTES,
  path: "/v1beta/models/{model}:generateContent",
  parse(_gw, raw, _key, ex) {
    const at = geminiPath(ex.url);
    if (!at || (at.method !== "generateContent" && at.method !== "streamGenerateContent"))
      throw invalidRequest("model: Required (the path is /v1beta/models/{model}:generateContent)");
    const json = parseJsonBody(raw);
    checkContentCount(json);
    const req = validate(GenerateContentRequest, json);
    const { chat, problems } = toChatRequest(req, at.model, at.method === "streamGenerateContent");
    const text = raw.toString("utf8");
    contexts.set(chat, {
      raw: text,
      candidates: req.generationConfig?.candidateCount ?? 1,
      problems,
      unbounded:
        req.cachedContent !== undefined ||
        req.contents.some((c) => c.parts.some((p) => p.fileData || (p.inlineData && !p.inlineData.mimeType.startsWith("image/")))),
    });
    return chat;
  },
  route: (found, req) => narrowGemini(found, req, contextOf(req).problems),
  async hold(gw, key, route, req, requestId) {
    const bill = await CHAT_UPSTREAM.hold(gw, key, route, { ...req, n: contextOf(req).candidates }, requestId);
    // Video, audio, documents and cached content are measured by Google alone: its count stands.
    if (contextOf(req).unbounded) bill.bound = null;
    return bill;
  },
  async adapter(gw, job, e, signal): Promise<GeminiAnswer> {
    const ctx = contextOf(job.body);
    if (e.instance.plugin.nativeGemini) return { native: await nativeAnswer(gw, job, e, ctx.raw, ctx.candidates, signal) };
    return { chat: await CHAT_UPSTREAM.adapter(gw, job, e, signal) };
  },
  usage: (job, value) => ("native" in value ? value.native.usage : CHAT_UPSTREAM.usage(job, value.chat)),
  estimate: (job, value) => ("native" in value ? estimate(job.body, value.native.text) : CHAT_UPSTREAM.estimate(job, value.chat)),
  render(_gw, ex, job, value, usage) {
    ex.json(200, JSON.stringify("native" in value ? value.native.json : renderAnswer(value.chat, usage, headOf(job))));
  },
  stream: {
    chat: (_gw, ex, job, opened, delivered) =>
      writeGeminiStream(ex, { ...streamCommon(job, delivered), head: headOf(job), first: opened.first, rest: opened.rest }),
    native: {
      open: (gw, job, e, signal) => (e.instance.plugin.nativeGemini ? openNativeStream(gw, job, e, contextOf(job.body).raw, signal) : undefined),
      failed: isError,
      relay: (_gw, ex, job, opened, delivered) =>
        relayNativeStream(ex, { native: opened.endpoint.instance.plugin.nativeGemini!, first: opened.first, rest: opened.rest }, streamCommon(job, delivered)),
    },
  },
});

/** What both stream writers take: the request's id, what was delivered, the estimate and the usage check (per candidate). */
function streamCommon(job: Job<ChatRequest>, delivered: { text: string }) {
  return {
    requestId: job.requestId,
    delivered,
    estimate: (text: string) => estimate(job.body, text),
    checkUsage: (u: Usage) => checkedUsage(u, job.route.model, contextOf(job.body).candidates),
  };
}

/** Contents and their parts, counted before zod runs (the bound core/validate.ts puts on chat's messages). */
function checkContentCount(json: unknown): void {
  const contents = (json as { contents?: unknown } | null)?.contents;
  if (!Array.isArray(contents)) return;
  let items = contents.length;
  for (let i = 0; i < contents.length && items <= MAX_REQUEST_ITEMS; i++) {
    const parts = (contents[i] as { parts?: unknown } | null)?.parts;
    if (Array.isArray(parts)) items += parts.length;
  }
  if (items > MAX_REQUEST_ITEMS)
    throw invalidRequest(`contents: A request may hold at most ${MAX_REQUEST_ITEMS} contents and parts together`, "request_too_large", "contents");
}
