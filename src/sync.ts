/**
 * `gateway models sync`: the bundled catalog, merged with each configured provider's live
 * model list and the config's `models:` (config wins), stored in SQLite.
 */
import { configModel, mergeCatalog } from "./catalog.js";
import { bundledCatalog } from "./bundled.js";
import type { Config } from "./config.js";
import type { ProviderInstance } from "./plugins.js";
import type { CatalogModel, Store } from "./store/index.js";
import { Upstream } from "./upstream.js";

export interface SyncReport {
  models: number;
  providers: Array<{ id: string; ok: boolean; models: number; error?: string }>;
}

/** A live model the bundled catalog does not know: listed under the instance, price unknown. */
function liveModel(instance: ProviderInstance, id: string, contextLength: number | undefined, created: number): CatalogModel {
  return {
    id: `${instance.plugin.name}/${id}`, ownedBy: instance.plugin.name, promptPrice: null, completionPrice: null,
    contextLength: contextLength ?? null, maxOutput: null, endpoints: [{ provider: instance.settings.id, model: id }],
    source: "live", created,
  };
}

export async function syncModels(config: Config, store: Store, instances: Map<string, ProviderInstance>, now = Date.now()): Promise<SyncReport> {
  const created = Math.floor(now / 1000);
  const bundled = bundledCatalog(now);
  const known = new Map(bundled.map((m) => [m.id, m]));
  const upstream = new Upstream(config.server.timeouts);
  const report: SyncReport = { models: 0, providers: [] };
  const live: CatalogModel[] = [];
  try {
    for (const instance of instances.values()) {
      const { plugin, settings } = instance;
      if (!plugin.models || settings.apiKey === undefined) continue;
      try {
        const req = await plugin.models.request({ settings, apiKey: settings.apiKey });
        const res = await upstream.send(req, plugin, AbortSignal.timeout(30_000));
        const models = plugin.models.response(await res.body.json());
        for (const m of models) {
          const id = `${plugin.name}/${m.id}`;
          if (!known.has(id)) live.push(liveModel(instance, m.id, m.contextLength, created));
        }
        report.providers.push({ id: settings.id, ok: true, models: models.length });
      } catch (err) {
        // Never echo upstream bodies: they can carry key fragments.
        report.providers.push({ id: settings.id, ok: false, models: 0, error: (err as Error).name === "UpstreamFailure" ? `upstream status ${(err as { upstreamStatus?: number }).upstreamStatus ?? "unreachable"}` : (err as Error).message });
      }
    }
  } finally {
    await upstream.close();
  }
  const merged = mergeCatalog(mergeCatalog(bundled, live), config.models.map((m) => configModel(m, created)));
  store.replaceCatalog(merged);
  report.models = merged.length;
  return report;
}
