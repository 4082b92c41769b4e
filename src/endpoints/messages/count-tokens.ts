/**
 * POST /v1/messages/count_tokens (docs/messages.md): `{input_tokens}` for a Messages request.
 * The provider's own count where the routed model's provider has one (Anthropic's
 * /v1/messages/count_tokens, the body as sent but for `model`), else, or when that call fails,
 * the gateway's bounded tokenizer estimate. Authenticated and rate limited like every request,
 * and refused with the 402 the model's requests would get (billing/count-tokens.ts); never
 * billed, no ledger row. Errors in Anthropic's envelope.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { admitCount, estimateCount } from "../../billing/count-tokens.js";
import { resolveAlias } from "../../catalog/aliases.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import { modelMissing, withAliasHint } from "../../catalog/model-hint.js";
import { validate } from "../../core/validate.js";
import type { Gateway } from "../../gateway.js";
import { authenticate } from "../../http/authenticate.js";
import { parseJsonBody } from "../../http/body.js";
import { Exchange } from "../../http/exchange.js";
import { readJson } from "../../upstream/body.js";
import { nativeOf } from "./context.js";
import { guardRequest } from "../../pipeline/guardrails.js";
import { anthropicEnvelope, messagesHeaders } from "./route.js";
import { CountTokensRequest } from "./schema.js";
import { toChatRequest } from "./translate.js";

export const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

export function serveCountTokens(gw: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ex = new Exchange(req, res, gw.config.server.compat !== "strict", gw.config.server);
  gw.obs.begin(ex.state.rec, COUNT_TOKENS_PATH, req);
  const done = countTokens(gw, ex).catch((err: unknown) => ex.fail(err, anthropicEnvelope));
  gw.pending.add(done);
  return done.finally(() => {
    gw.pending.delete(done);
    gw.obs.respond(ex.state.rec);
  });
}

async function countTokens(gw: Gateway, ex: Exchange): Promise<void> {
  const key = await authenticate(gw, ex.state, ex.credential(), () => ex.ip); // the key's rate limit counts it
  // Counting forwards the text to the provider too: the secret guardrail checks it first (pipeline/guardrails.ts).
  const json = parseJsonBody(guardRequest(gw, ex.state, key, await ex.body(gw.config.server.maxBodyBytes))) as Record<string, unknown>;
  const req = validate(CountTokensRequest, json);
  const byok = await gw.byok.forAccount(key.account);
  const resolved = resolveAlias(gw.config.aliases, req.model);
  const found = gw.catalog.find(resolved, (p) => byok.get(p), "anthropic");
  if (!found)
    throw withAliasHint(
      modelMissing(gw.catalog, resolved, (p) => byok.get(p), "anthropic"),
      resolved,
    );
  ex.state.rec.model = found.model.id;
  const { chat } = toChatRequest({ ...req, max_tokens: 1 });
  await admitCount(gw.store, key, found, chat, ex.state.id, gw.now());
  const e = found.endpoints.find((x) => nativeOf(x)?.countTokens);
  const counted = e ? await providerCount(gw, ex, e, json).catch(() => undefined) : undefined;
  ex.json(200, JSON.stringify({ input_tokens: counted ?? (await estimateCount(chat)) }));
}

async function providerCount(gw: Gateway, ex: Exchange, e: RoutedEndpoint, json: Record<string, unknown>): Promise<number | undefined> {
  const n = nativeOf(e)!;
  const ctx = { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: false };
  const res = await gw.upstream.send(await n.countTokens!({ ...json, model: e.model }, messagesHeaders(ex), ctx), e.instance.plugin, ex.signal);
  const answer = (await readJson(res.body, gw.config.server.upstream.maxResponseBytes)) as { input_tokens?: unknown } | null;
  const count = answer?.input_tokens;
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}
