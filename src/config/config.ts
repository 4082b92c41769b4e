/**
 * gateway.config.yaml's schema, `${VAR}` interpolation and validation (zod); finding and
 * reading the file is config/load.ts. An invalid config fails at start with the path of the
 * bad key and why.
 */
import proxyAddr from "proxy-addr";
import { z } from "zod";
import { formatProblems, nearMiss, problemsOf, unsetProblem, type LineOf, type PathSeg, type Problem } from "./diagnostics.js";
import { PLACEHOLDER } from "./source.js";
import { UsageError } from "../core/errors.js";
import { ModelPreferences } from "../core/routing-fields.js";
import { DashboardConfig } from "./dashboard.js";
import { LogConfig, MetricsConfig, OtelConfig } from "./observability.js";
import { Money } from "./amount.js";
import { McpConfig } from "./mcp.js";
import { GuardrailsConfig } from "./guardrails.js";

const Window = z.strictObject({ requests: z.number().int().positive(), window: z.number().positive() });

/**
 * `true` (loopback proxies only), `false`, a hop count, or proxy addresses and CIDRs (also
 * proxy-addr's names `loopback`, `linklocal`, `uniquelocal`), checked here so a typo fails at start.
 */
const TrustProxy = z.union([z.boolean(), z.number().int().min(0).max(32), z.array(z.string().min(1)).min(1)]).superRefine((v, ctx) => {
  if (!Array.isArray(v)) return;
  v.forEach((address, i) => {
    try {
      proxyAddr.compile(address);
    } catch {
      ctx.addIssue({ code: "custom", path: [i], message: "Expected an IP address, a CIDR (10.0.0.0/8) or loopback, linklocal, uniquelocal" });
    }
  });
});

/** A server-side tool's name as an adapter reports it (`web_search`, `file_search`, `google_search`). */
const ToolName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "Expected a tool name such as web_search");
/** USD per 1,000 calls of each server-side tool the provider bills per call (docs/billing.md). */
const ToolCallPrices = z.record(ToolName, Money);

const Pricing = z.strictObject({
  prompt: Money,
  completion: Money,
  cache_read: Money.optional(),
  cache_write: Money.optional(),
  tool_calls: ToolCallPrices.optional(),
});

/** `pricing` on an endpoint: what that provider charges for the model, billed when it serves (docs/routing.md). */
const Endpoint = z.strictObject({ provider: z.string().min(1), model: z.string().min(1), pricing: Pricing.optional() });

/** What a model can do (docs/openai-compat.md); an absent flag is not known, and so not refused by the gateway. */
const Capabilities = z.strictObject({
  tools: z.boolean().optional(),
  structured_output: z.boolean().optional(),
  images: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  web_search: z.boolean().optional(),
});

const ModelId = z.string().regex(/^[^/\s]+\/\S+$/, "Expected a vendor/model id");

export const ModelRoute = z.strictObject({
  id: ModelId,
  capabilities: Capabilities.optional(),
  /** `embeddings`: served on /v1/embeddings only, billed per input token at `pricing.prompt` (docs/embeddings.md). */
  kind: z.enum(["chat", "embeddings"]).optional(),
  pricing: Pricing.optional(),
  context_length: z.number().int().positive().optional(),
  max_output: z.number().int().positive().optional(),
  order: z.enum(["latency", "fixed"]).optional(),
  /** Provider preferences for every request to this model; a request's own `provider` wins field by field unless `binding` (docs/routing.md). */
  provider: ModelPreferences.optional(),
  /** Absent: the entry changes the catalog model of this id (a synced one, say), keeping its endpoints (catalog.ts mergeCatalog). */
  endpoints: z.array(Endpoint).min(1).optional(),
});
export type ModelRoute = z.infer<typeof ModelRoute>;

const PROVIDER_KEYS = ["plugin", "baseUrl", "apiKey"];

/**
 * Loose here, because plugins take options of their own (`apiVersion`, `region`): the loaded
 * plugin checks the rest against what it declares (src/plugin/config-check.ts). A key that is one
 * of the common three written differently (`baseURL`, `api_key`) is caught already here.
 */
const Provider = z
  .looseObject({
    plugin: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    apiKey: z.string().optional(),
  })
  .superRefine((entry, ctx) => {
    for (const key of Object.keys(entry)) {
      const near = PROVIDER_KEYS.includes(key) ? undefined : nearMiss(key, PROVIDER_KEYS);
      if (near) ctx.addIssue({ code: "custom", path: [key], message: `unknown key (did you mean ${near}?)` });
    }
  });

const Timeouts = z.strictObject({
  connect: z.number().int().positive().default(10_000),
  firstByte: z.number().int().positive().default(60_000),
  idle: z.number().int().positive().default(60_000),
  /** The longest one streamed answer may run, start to end. */
  stream: z.number().int().positive().default(600_000),
  /** On SIGTERM/SIGINT: how long in-flight requests may finish before open streams are ended. */
  shutdown: z.number().int().nonnegative().default(30_000),
});

/** Every buffer that holds upstream bytes has a cap (docs/limits.md). */
const UpstreamCaps = z.strictObject({
  maxEventBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * Connections per upstream origin. Each in-flight request holds one for its whole answer,
   * and an LLM stream lasts seconds: a small pool queues streams behind each other.
   */
  maxConnections: z.number().int().positive().default(10_000),
  /**
   * https origins over HTTP/2, up to `streamsPerConnection` requests per connection: 10,000
   * open streams hold ~100 upstream sockets, not 10,000 (docs/limits.md, "HTTP/2 to providers").
   */
  http2: z.boolean().default(true),
  streamsPerConnection: z.number().int().min(1).max(1000).default(100),
  /** A PEM file of CAs trusted besides Node's own (relative: to the config file). */
  caFile: z.string().min(1).optional(),
});

const REDIS_URL = /^rediss?:\/\/\S+$/;
const REDIS_URL_EXPECTED = "expected a redis:// or rediss:// URL";
/** Shared rate limits and circuits for several processes (docs/fleet.md); `prefix` namespaces every key. */
const RedisSettings = z
  .union([z.string(), z.strictObject({ url: z.string(), prefix: z.string().min(1).default("gw:") })])
  .superRefine((v, ctx) => {
    // Not echoed: the URL may carry a password.
    if (!REDIS_URL.test(typeof v === "string" ? v : v.url))
      ctx.addIssue({ code: "custom", path: typeof v === "string" ? [] : ["url"], message: REDIS_URL_EXPECTED });
  })
  .transform((v) => (typeof v === "string" ? { url: v, prefix: "gw:" } : v));
export type RedisSettings = z.output<typeof RedisSettings>;

export const Config = z.strictObject({
  server: z
    .strictObject({
      host: z.string().default("127.0.0.1"),
      port: z.number().int().min(0).max(65535).default(8787),
      maxBodyBytes: z
        .number()
        .int()
        .positive()
        .default(8 * 1024 * 1024),
      compat: z.enum(["strict", "openai", "passthrough"]).default("strict"),
      /** Which peers' X-Forwarded-For / X-Forwarded-Proto to believe (docs/http.md "Behind a reverse proxy"). */
      trustProxy: TrustProxy.default(false),
      timeouts: Timeouts.prefault({}),
      upstream: UpstreamCaps.prefault({}),
    })
    .prefault({}),
  /** A SQLite file, or a postgres:// URL shared by several processes (docs/fleet.md, docs/fleet.md). */
  database: z.string().default("./gateway.db"),
  /** PostgreSQL only: how long a hold lives without its process renewing it, and this process's pool size. */
  fleet: z
    .strictObject({
      leaseSeconds: z.number().int().min(1).max(600).default(30),
      maxConnections: z.number().int().min(2).max(1000).default(20),
      /** Requests one lease slice covers on a busy lane; 0 = one hold per request (docs/fleet.md, "Leases"). */
      leaseRequests: z.number().int().min(0).max(10_000).default(32),
    })
    .prefault({}),
  redis: RedisSettings.optional(),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "Provider ids are lowercase letters, digits and dashes"), Provider).default({}),
  models: z.array(ModelRoute).default([]),
  /** Models tried in order when a model fails (docs/routing.md), as a request's `models` does. */
  fallbacks: z.record(ModelId, z.array(ModelId).min(1)).default({}),
  /** Short names (`gpt-4o-mini`, `claude`) resolved to a vendor/model id before routing. */
  aliases: z.record(z.string().regex(/^\S+$/, "Expected a name without spaces"), ModelId).default({}),
  limits: z
    .strictObject({
      key: Window.default({ requests: 600, window: 60 }),
      ip: Window.default({ requests: 600, window: 60 }),
      models: z.record(z.string(), Window).default({}),
      providers: z.record(z.string(), Window).default({}),
    })
    .prefault({}),
  retry: z
    .strictObject({
      initialInterval: z.number().int().nonnegative().default(500),
      maxInterval: z.number().int().positive().default(30_000),
      exponent: z.number().min(1).default(1.5),
      // Total time one request may spend on retries (docs/limits.md): 10 s, at most docs/http.md's 120 s.
      maxElapsedTime: z.number().int().positive().max(120_000).default(10_000),
    })
    .prefault({}),
  health: z
    .strictObject({
      failureThreshold: z.number().int().positive().default(5),
      cooldown: z.number().int().positive().default(30_000),
    })
    .prefault({}),
  /** The web dashboard at /dashboard/ (docs/dashboard.md): its public address, sign-in methods, idle sessions. */
  dashboard: DashboardConfig.prefault({}),
  metrics: MetricsConfig.prefault({}),
  log: LogConfig.prefault({}),
  otel: OtelConfig.optional(),
  /** The exact response cache (docs/cache.md): off unless enabled, and then only for keys created or updated with `--cache`. */
  cache: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** Seconds an answer is kept. */
      ttl: z.number().int().positive().max(31_536_000).default(300),
      /** In process: at most this many answers (least recently used go first). */
      maxEntries: z.number().int().positive().default(10_000),
      /** In process: at most this many bytes of answers in all (keys and answers as stored). */
      maxBytes: z
        .number()
        .int()
        .positive()
        .default(64 * 1024 * 1024),
      /** The largest one answer stored, in process and in Redis (a larger one is served, not kept). */
      maxEntryBytes: z
        .number()
        .int()
        .positive()
        .default(1024 * 1024),
    })
    .prefault({}),
  /** Secret guardrails (docs/guardrails.md): off unless a mode is set here, on an account or on a key. */
  guardrails: GuardrailsConfig.prefault({}),
  /** Per-request ledger rows are kept this many days, then folded into kept daily totals (src/operations/retention.ts). */
  retention: z.strictObject({ days: z.number().int().positive().max(36_500).default(90) }).prefault({}),
  /** Alert webhooks' delivery (docs/alerts.md): how often due deliveries are looked for, the first retry's delay (then doubling), one attempt's cap. */
  alerts: z
    .strictObject({
      pollMs: z.number().int().min(10).max(5_000).default(1_000),
      retryBaseMs: z.number().int().min(10).default(30_000),
      timeoutMs: z.number().int().min(10).max(60_000).default(10_000),
    })
    .prefault({}),
  /** Upstream MCP servers behind /mcp (docs/mcp.md); more are added with `gateway mcp add`. */
  mcp: McpConfig.prefault({}),
});
export type Config = z.infer<typeof Config>;

/** The Redis to share limits and circuits through: GATEWAY_REDIS (a URL) over the config's `redis`. */
export function redisOf(config: Config, env: NodeJS.ProcessEnv): RedisSettings | undefined {
  const url = env.GATEWAY_REDIS;
  if (!url) return config.redis;
  if (!REDIS_URL.test(url)) throw new UsageError(`GATEWAY_REDIS: ${REDIS_URL_EXPECTED}`);
  return { url, prefix: config.redis?.prefix ?? "gw:" };
}

/**
 * `${VAR}` (and `${VAR:-default}`) in any string value, from the environment. A value that is
 * only a placeholder takes the YAML type of what it expands to (`port: ${PORT}` is a number),
 * and is left out when it expands to nothing (`${VAR:-}`: optional). A `${VAR}` with no
 * default whose variable is unset is collected in `unset`: the caller refuses the config.
 */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, unset: Problem[] = [], path: PathSeg[] = []): unknown {
  if (typeof value === "string") {
    const out = value.replace(PLACEHOLDER, (_m, name: string, fallback?: string) => {
      if (env[name] === undefined && fallback === undefined) unset.push(unsetProblem(name, path));
      return env[name] ?? fallback ?? "";
    });
    if (!/^\$\{[^}]+\}$/.test(value)) return out;
    if (out === "") return undefined;
    if (out === "true" || out === "false") return out === "true";
    return /^-?\d+(\.\d+)?$/.test(out) ? Number(out) : out;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, unset, [...path, i]));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, unset, [...path, k])]));
  }
  return value;
}

/** Where the config came from, to put a file and line on each problem. */
export interface ConfigSource {
  file: string;
  lineOf?: LineOf;
}

/** Validates and fills defaults; every problem (unset variables included) is one line of the UsageError. */
export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env, source?: ConfigSource): Config {
  const { config, unset, invalid } = checkConfig(raw, env);
  if (config && unset.length === 0) return config;
  throw new UsageError(formatProblems([...unset, ...invalid], source?.file, source?.lineOf).join("\n"));
}

export function checkConfig(raw: unknown, env: NodeJS.ProcessEnv): { config?: Config; unset: Problem[]; invalid: Problem[] } {
  const unset: Problem[] = [];
  const data = interpolate(raw ?? {}, env, unset);
  const result = Config.safeParse(data);
  if (result.success) return { config: result.data, unset, invalid: [] };
  // `port: 1${PORT}` with PORT unset also fails its type: the unset variable is the cause, said once.
  const invalid = problemsOf(result.error.issues, Config, data).filter((p) => !unset.some((u) => u.path.join(".") === p.path.join(".")));
  return { unset, invalid };
}
