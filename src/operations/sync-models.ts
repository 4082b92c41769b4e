/**
 * `gateway models sync [--prices <file|url>]`: the bundled catalog plus every model each
 * configured provider instance lists, priced or not, stored; then a community price list's
 * prices, when given (operations/import-prices.ts). Stored prices and the config's `models:`
 * apply on top at every read (catalog/priced.ts).
 */
import { configModel, mergeCatalog } from "../catalog/catalog.js";
import { bundledCatalog } from "../catalog/bundled.js";
import { NOT_CHAT_NAME } from "../catalog/model-kind.js";
import type { Config } from "../config/config.js";
import type { ProviderInstance } from "../plugin/load.js";
import type { ModelInfo } from "../plugin/contract.js";
import type { CatalogModel, Store } from "../store/index.js";
import type { PriceList } from "../catalog/price-list.js";
import { servedCatalog } from "../catalog/priced.js";
import type { AuditActor } from "./audit-note.js";
import { importPrices, type PricesReport } from "./import-prices.js";
import { bodyJson, Upstream } from "../upstream/upstream.js";
import { UpstreamFailure } from "../plugin/failure.js";

export interface SyncReport {
  /** Models in the catalog the gateway now serves from (stored + config). */
  models: number;
  /** One row per instance asked for its list; `models` is how many the upstream listed. */
  providers: Array<{ id: string; ok: boolean; models: number; error?: string }>;
  /** With `--prices`: what the price list did (operations/import-prices.ts). */
  prices?: PricesReport;
}

const LIST_TIMEOUT_MS = 30_000;

/** Plugins with a bundled catalog keep their plugin name as vendor (ids match it); others use the instance id (`ollama/llama3.1`). */
const vendorOf = (instance: ProviderInstance): string => (instance.plugin.describe?.catalog ? instance.plugin.name : instance.settings.id);

/** Instances worth asking: a platform key, or a local server that needs none. */
const listable = (i: ProviderInstance): boolean => i.plugin.models !== undefined && (i.settings.apiKey !== undefined || i.plugin.describe?.keyless === true);

/**
 * A live model the bundled catalog lacks gets an unknown price (null), never a guessed one: it
 * is listed with `pricing: null` and routed where billing is not at stake (an account's BYOK
 * key, a key-less local server); on a platform key it is refused with a 404 that says how to
 * price it (catalog/model-hint.ts): `models price`, config `models:` pricing, or `--prices`.
 */
function liveModel(vendor: string, instance: ProviderInstance, m: ModelInfo, created: number): CatalogModel {
  return {
    id: `${vendor}/${m.id}`,
    ownedBy: vendor,
    promptPrice: null,
    completionPrice: null,
    contextLength: m.contextLength ?? null,
    maxOutput: m.maxOutput ?? null,
    endpoints: [{ provider: instance.settings.id, model: m.id }],
    source: "live",
    created,
  };
}

/** A fixed description: upstream bodies and error messages can quote key fragments. */
function describe(err: unknown): string {
  if (err instanceof UpstreamFailure) {
    if (err.upstreamStatus !== null) return `upstream status ${err.upstreamStatus}`;
    const code = typeof err.cause === "string" && /^[A-Z][A-Z0-9_]*$/.test(err.cause) ? `: ${err.cause}` : "";
    return `unreachable${code}`;
  }
  if ((err as Error | undefined)?.name === "TimeoutError") return `no answer within ${LIST_TIMEOUT_MS / 1000} s`;
  return "unexpected model list format";
}

async function listLive(instance: ProviderInstance, upstream: Upstream): Promise<ModelInfo[]> {
  const { plugin, settings } = instance;
  const req = await plugin.models!.request({ settings, apiKey: settings.apiKey ?? "" });
  const res = await upstream.send({ method: "GET", ...req }, plugin, AbortSignal.timeout(LIST_TIMEOUT_MS));
  return plugin.models!.response(await bodyJson(res));
}

/** `--prices`: a price list read and parsed by the caller, imported after the sync (operations/import-prices.ts). */
export interface SyncOptions {
  now?: number;
  prices?: { list: PriceList; source: string; allowLower: boolean; by: AuditActor };
}

export async function syncModels(config: Config, store: Store, instances: Map<string, ProviderInstance>, o: SyncOptions = {}): Promise<SyncReport> {
  const now = o.now ?? Date.now();
  const created = Math.floor(now / 1000);
  const bundled = (await bundledCatalog())(now);
  const { live, providers } = await listAll(config, instances, new Set(bundled.map((m) => m.id)), created);
  // Config entries are not stored: they apply at every start, so removing one takes effect.
  const stored = mergeCatalog(bundled, live);
  await store.replaceCatalog(stored);
  const configModels = config.models.map((m) => configModel(m, created));
  const priced = async () => new Set([...config.models.filter((m) => m.pricing).map((m) => m.id), ...(await operatorPriced(store))]);
  const prices = o.prices && (await importPrices(store, o.prices.list, stored, { ...o.prices, priced: await priced(), now }));
  const served = servedCatalog(stored, await store.modelPrices(), configModels);
  return { models: served.length, providers, ...(prices && { prices }) };
}

const operatorPriced = async (store: Store) => (await store.modelPrices()).filter((p) => p.origin === "operator").map((p) => p.id);

/** Each listable instance's live models the bundled catalog lacks (`known`), and a report row per instance. */
async function listAll(config: Config, instances: Map<string, ProviderInstance>, known: Set<string>, created: number) {
  const live = new Map<string, CatalogModel>();
  const upstream = new Upstream(config.server.timeouts, config.server.upstream);
  const asked = [...instances.values()].filter(listable);
  let results: PromiseSettledResult<ModelInfo[]>[];
  try {
    results = await Promise.allSettled(asked.map((i) => listLive(i, upstream)));
  } finally {
    await upstream.close();
  }
  const providers = asked.map((instance, n) => {
    const result = results[n]!;
    if (result.status === "rejected") return { id: instance.settings.id, ok: false, models: 0, error: describe(result.reason) };
    const vendor = vendorOf(instance);
    for (const m of result.value) {
      const id = `${vendor}/${m.id}`;
      if (known.has(id) || NOT_CHAT_NAME.test(m.id)) continue;
      const prior = live.get(id);
      if (prior) prior.endpoints.push({ provider: instance.settings.id, model: m.id });
      else live.set(id, liveModel(vendor, instance, m, created));
    }
    return { id: instance.settings.id, ok: true, models: result.value.length };
  });
  return { live: [...live.values()], providers };
}
