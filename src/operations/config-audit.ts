/**
 * Config changes in the audit log (docs/audit.md "Config"): the config takes effect when `serve`
 * (re)starts, so each start compares a secret-free summary of its config with the last one
 * recorded and records `config.reload` (actor `config`) when it differs. The summary names what
 * is configured, never a value that could be secret: no provider key, URL, token or database URL.
 */
import type { Config } from "../config/config.js";
import { canonicalJson } from "../store/audit.js";
import type { Store } from "../store/index.js";

const sorted = (o: Record<string, unknown>) => Object.keys(o).sort();

function configSummary(config: Config): Record<string, unknown> {
  return {
    server: { host: config.server.host, port: config.server.port },
    database: /^postgres(ql)?:/i.test(config.database) ? "postgres" : "sqlite",
    redis: config.redis !== undefined,
    providers: sorted(config.providers),
    models: config.models.map((m) => m.id).sort(),
    aliases: config.aliases,
    fallbacks: config.fallbacks,
    limits: config.limits,
    cache: config.cache.enabled,
    dashboard: config.dashboard.enabled,
    retention_days: config.retention.days,
  };
}

/** Appends `config.reload` when the summary differs from the last recorded; true when it did. */
export async function recordConfig(store: Store, config: Config, source: string, now: number): Promise<boolean> {
  const after = JSON.parse(canonicalJson(configSummary(config))) as Record<string, unknown>;
  const last = (await store.auditRecords({ action: "config.reload" })).at(-1);
  if (last && canonicalJson(last.after) === canonicalJson(after)) return false;
  await store.appendAudit({ actor: "config", ip: null, at: now, action: "config.reload", account: null, target: source, before: last?.after ?? null, after });
  return true;
}
