/**
 * `gateway models sync`: the bundled catalog plus each configured provider instance's live
 * model list, stored in SQLite; the config's `models:` win on top (at every start).
 */
import { configModel, mergeCatalog } from "../catalog/catalog.js";
import { bundledCatalog } from "../catalog/bundled.js";
import type { Config } from "../config/config.js";
import type { ProviderInstance } from "../plugin/load.js";
import type { ModelInfo } from "../plugin/contract.js";
import type { CatalogModel, Store } from "../store/index.js";
import { bodyJson, Upstream } from "../upstream/upstream.js";
import { UpstreamFailure } from "../plugin/failure.js";

export interface SyncReport {
  /** Models in the catalog the gateway now serves from (stored + config). */
  models: number;
  /** One row per instance asked for its list; `models` is how many the upstream listed. */
  providers: Array<{ id: string; ok: boolean; models: number; error?: string }>;
}

const LIST_TIMEOUT_MS = 30_000;

/**
 * Ids that plainly name a non-chat model (embeddings, rerankers, speech, images, moderation,
 * realtime, legacy completions). List endpoints rarely say what a model does, so the name decides.
 */
const NOT_CHAT = /embed|rerank|whisper|tts|transcribe|dall-e|gpt-image|stable-diffusion|flux|sora|moderation|realtime|davinci|babbage/i;

/** Plugins with a bundled catalog keep their plugin name as vendor (ids match it); others use the instance id (`ollama/llama3.1`). */
const vendorOf = (instance: ProviderInstance): string => (instance.plugin.describe?.catalog ? instance.plugin.name : instance.settings.id);

/** Instances worth asking: a platform key, or a local server that needs none. */
const listable = (i: ProviderInstance): boolean => i.plugin.models !== undefined && (i.settings.apiKey !== undefined || i.plugin.describe?.keyless === true);

/**
 * A live model the bundled catalog lacks gets an unknown price (null), never a guessed one.
 * Decision: it is listed with `pricing: null` and routed where billing is not at stake (an
 * account's BYOK key, a key-less local server); to serve it on a platform key the operator
 * gives it a price in `models:`. (The core still bills null as 0 on platform keys: proposed
 * change in catalog/catalog.ts `route`.)
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

export async function syncModels(config: Config, store: Store, instances: Map<string, ProviderInstance>, now = Date.now()): Promise<SyncReport> {
  const created = Math.floor(now / 1000);
  const bundled = (await bundledCatalog())(now);
  const known = new Set(bundled.map((m) => m.id));
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
      if (known.has(id) || NOT_CHAT.test(m.id)) continue;
      const prior = live.get(id);
      if (prior) prior.endpoints.push({ provider: instance.settings.id, model: m.id });
      else live.set(id, liveModel(vendor, instance, m, created));
    }
    return { id: instance.settings.id, ok: true, models: result.value.length };
  });
  // Config entries are not stored: they apply at every start, so removing one takes effect.
  const stored = mergeCatalog(bundled, [...live.values()]);
  await store.replaceCatalog(stored);
  const served = mergeCatalog(
    stored,
    config.models.map((m) => configModel(m, created)),
  );
  return { models: served.length, providers };
}
