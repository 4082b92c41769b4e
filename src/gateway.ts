/**
 * Everything one running gateway holds, built once from the config and the store. No
 * module-level state: tests build as many isolated gateways as they like.
 */
import { ByokKeys, loadSecret } from "./access/byok.js";
import { Catalog, configModel } from "./catalog/catalog.js";
import { readServedCatalog } from "./catalog/priced.js";
import { bundledCatalog } from "./catalog/bundled.js";
import { redisOf, type Config } from "./config/config.js";
import { Health } from "./upstream/health.js";
import { createAuthenticator, type Authenticator } from "./access/keys.js";
import { createMemoryLimiter, type Limiter } from "./access/limits.js";
import { loadProviders, type ProviderInstance } from "./plugin/load.js";
import { InflightJournal } from "./billing/journal.js";
import { createLog, SILENT, type LogTarget } from "./observability/log.js";
import { Observer } from "./observability/observer.js";
import { Router } from "./upstream/router.js";
import type { Store } from "./store/index.js";
import { Upstream } from "./upstream/upstream.js";
import { openCache, type Remembered } from "./cache/open.js";
import type { ResponseCache } from "./cache/policy.js";
import type { RequestMemo } from "./cache/request-memo.js";
import { AlertDetector } from "./alerts/detect.js";
import { AlertDeliverer } from "./alerts/deliver.js";
import { McpPool } from "./mcp/pool.js";
import { SessionTokens } from "./mcp/session.js";

export interface Gateway {
  config: Config;
  store: Store;
  auth: Authenticator;
  byok: ByokKeys;
  catalog: Catalog;
  instances: Map<string, ProviderInstance>;
  router: Router;
  upstream: Upstream;
  limiter: Limiter;
  health: Health;
  /** Chat requests in flight and settlements still being written; awaited on shutdown. */
  pending: Set<Promise<unknown>>;
  /** Aborts when a shutdown's grace period is over: open streams end now, billed for what they delivered. */
  stopping: AbortSignal;
  stopStreams(): void;
  journal: InflightJournal;
  /** The response cache (docs/cache.md), when the config enables it: in Redis with one, else in this process. */
  cache: ResponseCache | undefined;
  /** Requests answered from the cache before, by their bytes (cache/request-memo.ts); with the cache only. */
  cacheMemo: RequestMemo<Remembered> | undefined;
  /** Metrics and the request log (observability/observer.ts). */
  obs: Observer;
  /** Budget thresholds and low balances, checked after a charged request settled (docs/alerts.md). */
  alerts: AlertDetector;
  /** The upstream MCP servers, their connections and tool lists, and the accounts' grants (docs/mcp.md). */
  mcp: McpPool;
  /** The /mcp sessions' tokens (mcp/session.ts). */
  mcpSessions: SessionTokens;
  now(): number;
  close(): Promise<void>;
}

export interface GatewayOptions {
  config: Config;
  store: Store;
  env?: NodeJS.ProcessEnv;
  /** Where relative plugin paths resolve from (the config file's folder). */
  baseDir?: string;
  now?: () => number;
  /** Where the log goes (observability/log.ts); default: no log records, operator lines on stderr. */
  log?: LogTarget;
}

/** How often last-used times of keys are written (one batched statement). */
const TOUCH_MS = 1_000;

export async function createGateway(o: GatewayOptions): Promise<Gateway> {
  const env = o.env ?? process.env;
  const now = o.now ?? Date.now;
  const { config, store } = o;
  const [instances, bundled] = await Promise.all([loadProviders(config, env, o.baseDir ?? process.cwd()), bundledCatalog()]);
  const configModels = config.models.map((m) => configModel(m, Math.floor(now() / 1000)));
  // The stored catalog (after `models sync`), else the bundled one; stored prices, then config entries on top.
  const buildCatalog = async () => new Catalog(await readServedCatalog(store, () => bundled(now()), configModels), instances);
  const health = new Health(config.health);
  const auth = createAuthenticator(store);
  const secret = loadSecret(config.database, env);
  const byok = new ByokKeys(store, secret);
  const log = createLog(config.log, o.log ?? SILENT);
  // With a Redis, limits and circuits are shared by every process (src/fleet/redis.ts); without, as before.
  const redis = redisOf(config, env);
  const shared = redis ? await (await import("./fleet/redis.js")).openShared(redis, health, now, (line) => log.notice("warn", line)) : undefined;
  const limiter = shared?.limiter ?? createMemoryLimiter();

  const timer = setInterval(() => void auth.flush().catch(() => undefined), TOUCH_MS);
  timer.unref();

  const baseUrls = [...instances.values()].map((i) => i.settings.baseUrl);
  const upstream = new Upstream(config.server.timeouts, { ...config.server.upstream, baseUrls });
  const pending = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  const journal = new InflightJournal(store, (line) => log.notice("error", line));
  // The operator's instances (configured, or enabled by a key variable); not the key-less BYOK
  // ones present only for accounts' own keys, which would fill /metrics with unconfigured names.
  const operated = [...instances.values()]
    .filter((i) => Object.hasOwn(config.providers, i.settings.id) || i.settings.apiKey !== undefined)
    .map((i) => i.settings.id);
  const obs = new Observer({ config, health, now, log, providers: () => operated });
  const warn = (line: string) => log.notice("warn", line);
  const cached = openCache(config.cache, shared && redis && { client: shared.client, prefix: redis.prefix }, now);
  const deliverer = new AlertDeliverer({ store, secret, settings: config.alerts, now, warn });
  const alerts = new AlertDetector({ store, now, wake: () => deliverer.wake(), warn });
  deliverer.start();
  const mcp = new McpPool({ config, store, secret, now, warn });
  await mcp.start();
  const gateway: Gateway = {
    config,
    store,
    auth,
    byok,
    catalog: await buildCatalog(),
    instances,
    upstream,
    limiter,
    health,
    pending,
    now,
    stopping: stopping.signal,
    stopStreams: () => stopping.abort(),
    journal,
    cache: cached?.cache,
    cacheMemo: cached?.memo,
    obs,
    alerts,
    mcp,
    mcpSessions: new SessionTokens(secret),
    router: new Router({ health, limiter, limits: config.limits, retry: config.retry, now, log: (line) => log.notice("error", line) }),
    async close() {
      clearInterval(timer);
      unwatch();
      journal.stop();
      // A settlement may join while earlier work ends: wait until nothing is left.
      while (pending.size) await Promise.allSettled([...pending]);
      await alerts.idle();
      await deliverer.stop();
      await mcp.close();
      await auth.flush();
      await upstream.close();
      await shared?.close();
      await obs.close();
      log.events.info({ event: "stop" }, "gateway stopped");
      await log.close();
    },
  };
  // Another connection or process changed state (a CLI revoke, credits add, byok set): drop cached state.
  const unwatch = store.watch(() => {
    auth.invalidate();
    byok.invalidate();
    gateway.cacheMemo?.clear(); // its routes were read from what changed
    alerts.invalidate();
    mcp.invalidate(); // grants and servers added or removed from the CLI or another process
    // A `models sync` or `models price` from the CLI is live without a restart; a failed read keeps the catalog it had.
    buildCatalog().then(
      (c) => void (gateway.catalog = c),
      (err: Error) => log.notice("error", `[gateway] the catalog could not be re-read (kept the one in memory): ${err.message}`),
    );
  });
  return gateway;
}
