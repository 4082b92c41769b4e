/**
 * POST /v1beta/models/{model}:embedContent and :batchEmbedContents (and under /v1/) through the
 * one request pipeline (pipeline/run.ts), docs/gemini.md "Embeddings". The model comes from the
 * path; the body is Google's request, read into the pipeline's embeddings request
 * (embed-translate.ts) for the hold and the translated path. Per attempt the routed endpoint
 * decides: a plugin with `native.gemini.embed` gets the client's requests (embed-native.ts), any
 * other the texts through its embeddings adapter (pipeline/embed-upstream.ts), billed as
 * /v1/embeddings is. Answers and errors in Google's shapes; ledger rows say `gemini`.
 */
import { nativeOf } from "../../pipeline/native.js";
import { invalidRequest } from "../../core/errors.js";
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import type { Embedded } from "../../pipeline/embed-call.js";
import { estimateTokens, narrowEmbeddings } from "../../pipeline/embed-input.js";
import { EMBED_UPSTREAM, usageOf } from "../../pipeline/embed-upstream.js";
import { render } from "../../pipeline/embed-vectors.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import { requireEmbeddingModel } from "../../catalog/model-kind.js";
import { BatchEmbedContentsRequest, checkEmbedCount, EmbedContentRequest } from "./embed-schema.js";
import { nativeEmbed } from "./embed-native.js";
import { toEmbedding, type GeminiEmbedding } from "./embed-translate.js";
import { GEMINI_ROUTES } from "./common.js";
import { nativeOrTranslated } from "./narrow.js";
import { geminiPath, isEmbedMethod } from "./path.js";

/** The vectors, and whether Google answered natively (it embeds titles too). */
interface EmbedAnswer {
  embedded: Embedded;
  native: boolean;
}

export const GEMINI_EMBED: Endpoint<GeminiEmbedding, EmbedAnswer> = definesStages("gemini embed", {
  ...GEMINI_ROUTES,
  path: "/v1beta/models/{model}:embedContent",
  parse(_gw, raw, _key, ex) {
    const at = geminiPath(ex.url);
    if (!at || !isEmbedMethod(at.method)) throw invalidRequest("model: Required (the path is /v1beta/models/{model}:embedContent)");
    const single = at.method === "embedContent";
    const json = parseJsonBody(raw);
    checkEmbedCount(json, single);
    const requests = single ? [validate(EmbedContentRequest, json)] : validate(BatchEmbedContentsRequest, json).requests;
    return toEmbedding(at.model, requests, single);
  },
  route(found, req) {
    requireEmbeddingModel(found.model);
    const call = { ...req.call, encoding: "float" as const };
    return nativeOrTranslated(
      found,
      (e) => nativeOf(e, "gemini")?.embed !== undefined,
      req.problems,
      (others) => narrowEmbeddings(others, req.inputs, call),
    );
  },
  hold: EMBED_UPSTREAM.hold,
  async adapter(gw, job, e, signal) {
    const native = nativeOf(e, "gemini")?.embed;
    if (native) return { embedded: await nativeEmbed(gw, e, native, job.body.requests, signal), native: true };
    return { embedded: await EMBED_UPSTREAM.adapter(gw, job, e, signal), native: false };
  },
  usage: (job, value) => EMBED_UPSTREAM.usage(job, value.embedded),
  // Google reports no usage for embeddings: counted here, titles included where Google embedded them.
  estimate: async (job, value) => usageOf(await estimateTokens(value.native ? [...job.body.inputs, ...job.body.titles] : job.body.inputs)),
  render(_gw, ex, job, value) {
    const embeddings = value.embedded.vectors.map((v) => ({ values: render(v, "float") }));
    ex.json(200, JSON.stringify(job.body.single ? { embedding: embeddings[0] } : { embeddings }));
  },
});
