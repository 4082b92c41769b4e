/**
 * POST /v1beta/models/{model}:countTokens -> `{totalTokens}` (https://ai.google.dev/api/tokens):
 * Google's own answer where the model has a native endpoint (the body as sent), else, or when
 * every native endpoint fails, the gateway's bounded tokenizer estimate of the request's chat
 * form (o200k): the pipeline's count stage (pipeline/count.ts). Never billed; it counts against the key's rate limit as a request (it is
 * authenticated like every keyed route), and is refused with the 402 the model's requests would
 * get (billing/count-tokens.ts).
 */
import type { AdapterServices } from "../../pipeline/endpoint.js";
import type { H3Event } from "h3";
import { requestTooLarge } from "../../core/errors.js";
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import { countStage } from "../../pipeline/count.js";
import type { KeyRecord } from "../../store/index.js";
import { CountTokensRequest } from "./schema.js";
import { guardRequest } from "../../pipeline/guardrails.js";
import { toChatRequest } from "./translate.js";

export async function countTokens(gw: AdapterServices, key: KeyRecord, event: H3Event, model: string, requestId: string): Promise<unknown> {
  const limit = gw.config.server.maxBodyBytes;
  if (Number(event.req.headers.get("content-length")) > limit) throw requestTooLarge(limit);
  const sent = Buffer.from(await event.req.arrayBuffer());
  if (sent.length > limit) throw requestTooLarge(limit);
  const raw = guardRequest(gw, null, key, sent); // counting forwards the text to Google too (pipeline/guardrails.ts)
  const req = validate(CountTokensRequest, parseJsonBody(raw));
  const body = raw.toString("utf8");
  const counted = await countStage(gw, key, requestId, event.req.signal, {
    api: "gemini",
    model,
    vendor: "google",
    chat: toChatRequest(req.generateContentRequest ?? { contents: req.contents ?? [] }, model, false).chat,
    chatModelsOnly: true,
    request: (n, ctx) => n.countTokens(body, ctx),
    // Google's answer as it came (`totalTokens`, and its cached-content and modality details), once checked.
    answer: (n, json) => (n.countTokensResponse(json), json),
  });
  return counted.provider ?? { totalTokens: counted.estimate };
}
