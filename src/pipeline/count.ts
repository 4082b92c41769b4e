/**
 * count_tokens through the pipeline (docs/messages.md "count_tokens", docs/gemini.md
 * "countTokens"): the model routed as the API's requests are (aliases, BYOK, its 404), admitted
 * as they are (the 402 they would get, billing/count-tokens.ts), then the provider's own count
 * from the first endpoint whose native capability counts and answers (the native step's
 * request, pipeline/native.ts), else the gateway's bounded estimate. Never billed, no ledger
 * row. An endpoint supplies its request's chat form, the count call and how its answer reads.
 */
import { admitCount, estimateCount } from "../billing/count-tokens.js";
import { resolveAlias } from "../catalog/aliases.js";
import type { Route } from "../catalog/catalog.js";
import { modelMissing, withAliasHint } from "../catalog/model-hint.js";
import { requireChatModel } from "../catalog/model-kind.js";
import type { ChatRequest } from "../core/chat-request.js";
import type { CallContext, UpstreamRequest } from "../plugin/contract.js";
import type { KeyRecord } from "../store/index.js";
import { readJson } from "../upstream/body.js";
import type { AdapterServices, NativeApi, NativeCapability } from "./endpoint.js";
import { nativeOf, sendWith } from "./native.js";

export interface CountRequest<A extends NativeApi, T> {
  api: A;
  /** The model as the client named it, and the vendor a bare id means on this route. */
  model: string;
  vendor: string;
  /** The request's chat form: its worst case admits it, the estimate counts it. */
  chat: ChatRequest;
  /** Told the route once the model is found (the request record's model). */
  routed?(route: Route): void;
  /** Refuse a model that is not a chat model (Google's route does; Anthropic's counts any). */
  chatModelsOnly?: boolean;
  /** The provider's count call, where its capability has one; undefined: it does not count. */
  request(n: NativeCapability<A>, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest> | undefined;
  /** The provider's answer as this API's count (throw or undefined: not a count). */
  answer(n: NativeCapability<A>, json: unknown): T | undefined;
}

export interface Counted<T> {
  /** The provider's count, when one answered. */
  provider?: T;
  /** Otherwise the gateway's. */
  estimate?: number;
}

export async function countStage<A extends NativeApi, T>(
  gw: AdapterServices,
  key: KeyRecord,
  requestId: string,
  signal: AbortSignal,
  c: CountRequest<A, T>,
): Promise<Counted<T>> {
  const byok = await gw.byok.forAccount(key.account);
  const resolved = resolveAlias(gw.config.aliases, c.model);
  const route = gw.catalog.find(resolved, (plugin) => byok.get(plugin), c.vendor);
  if (!route)
    throw withAliasHint(
      modelMissing(gw.catalog, resolved, (plugin) => byok.get(plugin), c.vendor),
      resolved,
    );
  c.routed?.(route);
  if (c.chatModelsOnly) requireChatModel(route.model);
  await admitCount(gw.store, key, route, c.chat, requestId, gw.now());
  for (const e of route.endpoints) {
    const n = nativeOf(e, c.api);
    const request = n && c.request(n, { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: false });
    if (!request) continue;
    const provider = await sendWith(gw, e, request, signal)
      .then(async (res) => c.answer(n, await readJson(res.body, gw.config.server.upstream.maxResponseBytes)))
      .catch(() => undefined); // a provider that cannot count now: the next, else the estimate
    if (provider !== undefined) return { provider };
  }
  return { estimate: await estimateCount(c.chat) };
}
