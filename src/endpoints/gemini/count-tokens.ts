/**
 * POST /v1beta/models/{model}:countTokens -> `{totalTokens}` (https://ai.google.dev/api/tokens):
 * Google's own answer where the model has a native endpoint (the body as sent), else, or when
 * every native endpoint fails, the gateway's bounded tokenizer estimate of the request's chat
 * form (o200k). Never billed; it counts against the key's rate limit as a request (it is
 * authenticated like every keyed route), and is refused with the 402 the model's requests would
 * get (billing/count-tokens.ts).
 */
import type { H3Event } from "h3";
import { resolveAlias } from "../../catalog/aliases.js";
import { modelMissing, withAliasHint } from "../../catalog/model-hint.js";
import { requireChatModel } from "../../catalog/model-kind.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import { admitCount, estimateCount } from "../../billing/count-tokens.js";
import { requestTooLarge } from "../../core/errors.js";
import { validate } from "../../core/validate.js";
import type { Gateway } from "../../gateway.js";
import { parseJsonBody } from "../../http/body.js";
import type { KeyRecord } from "../../store/index.js";
import { readJson } from "../../upstream/body.js";
import { CountTokensRequest } from "./schema.js";
import { guardRequest } from "../../pipeline/guardrails.js";
import { toChatRequest } from "./translate.js";

export async function countTokens(gw: Gateway, key: KeyRecord, event: H3Event, model: string, requestId: string): Promise<unknown> {
  const limit = gw.config.server.maxBodyBytes;
  if (Number(event.req.headers.get("content-length")) > limit) throw requestTooLarge(limit);
  const sent = Buffer.from(await event.req.arrayBuffer());
  if (sent.length > limit) throw requestTooLarge(limit);
  const raw = guardRequest(gw, null, key, sent); // counting forwards the text to Google too (pipeline/guardrails.ts)
  const req = validate(CountTokensRequest, parseJsonBody(raw));
  const byok = await gw.byok.forAccount(key.account);
  const resolved = resolveAlias(gw.config.aliases, model);
  const found = gw.catalog.find(resolved, (plugin) => byok.get(plugin), "google");
  if (!found)
    throw withAliasHint(
      modelMissing(gw.catalog, resolved, (plugin) => byok.get(plugin), "google"),
      resolved,
    );
  requireChatModel(found.model);
  const { chat } = toChatRequest(req.generateContentRequest ?? { contents: req.contents ?? [] }, model, false);
  await admitCount(gw.store, key, found, chat, requestId, gw.now());
  for (const e of found.endpoints) {
    if (!e.instance.plugin.nativeGemini) continue;
    const counted = await nativeCount(gw, e, raw.toString("utf8"), event.req.signal).catch(() => undefined);
    if (counted !== undefined) return counted;
  }
  return { totalTokens: await estimateCount(chat) };
}

/** Google's answer as it came (`totalTokens`, and its cached-content and modality details), once checked. */
async function nativeCount(gw: Gateway, e: RoutedEndpoint, body: string, signal: AbortSignal): Promise<unknown> {
  const plugin = e.instance.plugin;
  const ctx = { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: false };
  const res = await gw.upstream.send(plugin.nativeGemini!.countTokens(body, ctx), plugin, signal);
  const json = await readJson(res.body, gw.config.server.upstream.maxResponseBytes);
  plugin.nativeGemini!.countTokensResponse(json);
  return json;
}
