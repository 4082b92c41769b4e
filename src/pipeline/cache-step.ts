/**
 * The cache stage of the pipeline (docs/cache.md), between limits and hold: a request the
 * response cache may answer is looked up by its key (cache/key.ts); a hit is billed at 0
 * (a ledger row with usage source `cache_hit`, its list cost what it saved) and rendered
 * without an upstream call, as JSON or replayed as the endpoint's stream; a miss goes on
 * with `keep`, which stores the answer once it succeeded. Every request an endpoint with a
 * cache serves says which in `X-Gateway-Cache: hit|miss|bypass` while the cache is enabled.
 */
import { Bill } from "../billing/bill.js";
import { cacheKey } from "../cache/key.js";
import { cacheUse } from "../cache/policy.js";
import { routingOf } from "../core/routing-fields.js";
import type { Route } from "../catalog/catalog.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { KeyRecord } from "../store/index.js";
import type { Endpoint, Job, Parsed } from "./endpoint.js";
import { tagsOf } from "./request-tags.js";

/** What the cache stage decided: the request was answered, or it goes upstream (storing its answer with `keep`, if allowed). */
type CacheStep = { answered: true } | { answered: false; keep?: Job["keep"] };

interface Kept<Answer> {
  answer: Answer;
  usage: Usage;
}

/** The memo's key for this request's bytes, when the cache could answer it (cache/request-memo.ts). */
export function repeatDigest(gw: Gateway, ep: Endpoint<Parsed, unknown>, key: KeyRecord, raw: Buffer): string | undefined {
  if (!gw.cacheMemo || !ep.cache || (key.cache ?? "off") === "off") return undefined;
  return gw.cacheMemo.digest(key.id, ep.name, raw);
}

/**
 * A repeat of a request answered from the cache before, answered again without parsing,
 * validating or routing it (docs/cache.md, "What a hit costs"). False: not a repeat, the
 * request refuses the cache, or the answer is gone; the request goes the ordinary way.
 */
export async function cachedRepeat<Req extends Parsed, Answer>(
  gw: Gateway,
  ex: Exchange,
  ep: Endpoint<Req, Answer>,
  key: KeyRecord,
  digest: string | undefined,
): Promise<boolean> {
  const memo = digest === undefined ? undefined : gw.cacheMemo!.get(digest);
  if (!memo) return false;
  const body = memo.value.body as Req;
  const use = cacheUse(key, body as Partial<ChatRequest>, ex.header("cache-control"));
  if (use === "bypass" || !use.read) return false;
  const found = await gw.cache!.get(memo.id);
  if (found === undefined) return (gw.cacheMemo!.delete(digest!), false);
  ex.state.headers["x-gateway-cache"] = "hit";
  // The kept answer as parsed last time while it is the same text (answers are rendered, never changed).
  const kept = gw.cacheMemo!.parsed(digest!, found) as Kept<Answer>;
  await answer(gw, ex, ep, key, body, memo.value.route, kept);
  return true;
}

export async function cacheStage<Req extends Parsed, Answer>(
  gw: Gateway,
  ex: Exchange,
  ep: Endpoint<Req, Answer>,
  key: KeyRecord,
  body: Req,
  route: Route,
  repeat?: { digest: string; bytes: number },
): Promise<CacheStep> {
  const cache = gw.cache;
  if (!cache || !ep.cache) return { answered: false };
  const use = cacheUse(key, body as Partial<ChatRequest>, ex.header("cache-control"));
  ex.state.headers["x-gateway-cache"] = use === "bypass" ? "bypass" : "miss";
  if (use === "bypass") return { answered: false };
  const id = cacheKey(key.account, route.model.id, body, routingOf(body));
  const found = use.read ? await cache.get(id) : undefined;
  if (found === undefined) return { answered: false, keep: (answer, usage) => void cache.set(id, JSON.stringify({ answer, usage })) };
  ex.state.headers["x-gateway-cache"] = "hit";
  // Remembered only once answered from the cache: such a body is read, never sent upstream (and changed) again.
  if (repeat) gw.cacheMemo!.set(repeat.digest, id, { body, route }, repeat.bytes);
  await answer(gw, ex, ep, key, body, route, JSON.parse(found) as Kept<Answer>);
  return { answered: true };
}

/** A hit: its ledger row at cost 0, then the kept answer as JSON or as the endpoint's stream. */
async function answer<Req extends Parsed, Answer>(
  gw: Gateway,
  ex: Exchange,
  ep: Endpoint<Req, Answer>,
  key: KeyRecord,
  body: Req,
  route: Route,
  kept: Kept<Answer>,
) {
  ex.state.rec.model = route.model.id;
  ex.state.headers["x-gateway-cost"] = "0"; // a hit is never charged (docs/cache.md)
  const bill = new Bill(gw.store, key, route, ex.state.id, gw.now(), null, 0, false);
  bill.endpoint = ep.name;
  bill.tags = tagsOf(ex, ep, body);
  bill.observe(ex.state.rec);
  const job: Job<Req> = { requestId: ex.state.id, keyId: key.id, body, route, bill, attempts: [] };
  await bill.settle({ endpoint: null, usage: kept.usage, usageSource: "cache_hit", status: "ok", httpStatus: 200, attempts: [] }, gw.now());
  if (body.stream && ep.cache?.replay) return ep.cache.replay(gw, ex, job, kept.answer, kept.usage);
  const written = ep.render(gw, ex, job, kept.answer, kept.usage);
  if (written) await written;
}
