/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent through the one
 * request pipeline (pipeline/run.ts), docs/gemini.md. The model and whether to stream come
 * from the path; the body is Google's GenerateContentRequest. Every request is also read into
 * the internal ChatRequest (translate.ts), the pipeline's request for this endpoint: its hold,
 * usage bound and estimates, and the translated path's upstream call. Per attempt the routed
 * endpoint decides (the pipeline's native step, pipeline/native.ts): a plugin with `native.gemini` gets the body as sent (native.ts), any other
 * the chat request through its adapter (pipeline/chat-upstream.ts). Errors in Google's envelope.
 */
import { CHAT_UPSTREAM, estimate } from "../../pipeline/chat-upstream.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import type { ChatRequest } from "../../core/chat-request.js";
import { invalidRequest } from "../../core/errors.js";
import { MAX_REQUEST_ITEMS, validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import { GEMINI_ROUTES } from "./common.js";
import { GEMINI_NATIVE, type GeminiAnswer } from "./native.js";
import { contextOf, headOf, remember, streamCommon } from "./context.js";
import { geminiPath } from "./path.js";
import { narrowGemini } from "./narrow.js";
import { renderAnswer } from "./render.js";
import { GenerateContentRequest } from "./schema.js";
import { writeGeminiStream } from "./stream.js";
import { toChatRequest } from "./translate.js";

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
    remember(chat, {
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
  adapter: async (gw, job, e, signal) => ({ chat: await CHAT_UPSTREAM.adapter(gw, job, e, signal) }),
  usage: (job, value) => ("native" in value ? value.native.usage : CHAT_UPSTREAM.usage(job, value.chat)),
  estimate: (job, value) => ("native" in value ? estimate(job.body, value.native.text) : CHAT_UPSTREAM.estimate(job, value.chat)),
  render(_gw, ex, job, value, usage) {
    ex.json(200, JSON.stringify("native" in value ? value.native.json : renderAnswer(value.chat, usage, headOf(job))));
  },
  stream: (_gw, ex, job, opened, delivered) =>
    writeGeminiStream(ex, { ...streamCommon(job, delivered), head: headOf(job), first: opened.first, rest: opened.rest }),
  native: GEMINI_NATIVE,
});

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
