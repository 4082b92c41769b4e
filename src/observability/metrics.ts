/**
 * The gateway's Prometheus metrics (docs/observability.md), one Registry per gateway: tests build
 * many gateways in one process and each counts only its own requests. Node's process metrics
 * describe the process, not a gateway, so they live in one registry per process (below).
 * Label values are bounded: routes are the gateway's own paths, models catalog ids, providers
 * configured instance ids; never a key, an account or a client address. The list with
 * meanings is docs/observability.md.
 */
import { collectDefaultMetrics, Registry } from "prom-client";
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterSeries, type HistogramSeries } from "./metric-series.js";
import type { RequestRecord } from "./request-record.js";

/** Whole requests and upstream waits: an LLM answer takes from milliseconds to minutes. */
const LONG = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The gateway's own time: tenths of a millisecond up. */
const SHORT = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

const NO_MODEL = "unknown";
const NO_PROVIDER = "none";

let processRegistry: Registry | undefined;

/** Errors no code path caught, counted by app/process-guard.ts: a process-wide count. */
const uncaught = new CounterFamily("gateway_uncaught_errors_total", "Errors nothing caught (kind: exception|rejection); each was logged with its stack.", [
  "kind",
]);

/** Node's process metrics: one set per process, whatever the number of gateways in it. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    uncaught.register(processRegistry);
  }
  return processRegistry;
}

/** One more uncaught error of this kind (app/process-guard.ts). */
export function countUncaught(kind: "exception" | "rejection"): void {
  processMetrics();
  uncaught.at(kind, [kind]).value++;
}

/** Cached series of one request's shape: the label key is built once per distinct shape. */
interface RequestSeries {
  requests: CounterSeries;
  duration: HistogramSeries;
  overhead: HistogramSeries;
}

interface UsageSeries {
  prompt: CounterSeries;
  completion: CounterSeries;
  /** nano-USD. */
  cost: CounterSeries;
}

export interface CircuitSource {
  /** Per configured provider: 1 while a circuit of one of its endpoints is open (or half-open). */
  circuits(): Array<{ provider: string; open: boolean }>;
  inflight(): number;
}

export class Metrics {
  private readonly registry = new Registry();
  private readonly requests = new CounterFamily("gateway_requests_total", "HTTP requests answered, by route, status, model and provider.", [
    "route",
    "status",
    "model",
    "provider",
  ]).register(this.registry);
  private readonly duration = new HistogramFamily("gateway_request_duration_seconds", "Whole request time, start to the last byte.", ["route"], LONG).register(
    this.registry,
  );
  private readonly upstream = new HistogramFamily(
    "gateway_upstream_duration_seconds",
    "One upstream attempt's wait (JSON: the answer read; stream: the first delta).",
    ["provider"],
    LONG,
  ).register(this.registry);
  private readonly overhead = new HistogramFamily(
    "gateway_overhead_seconds",
    "Time spent in the gateway up to the answer's head (a stream's first byte), upstream waits excluded.",
    ["provider"],
    SHORT,
  ).register(this.registry);
  private readonly tokens = new CounterFamily("gateway_tokens_total", "Tokens billed, by model, provider and kind (prompt|completion).", [
    "model",
    "provider",
    "kind",
  ]).register(this.registry);
  private readonly cost = new CounterFamily(
    "gateway_cost_usd_total",
    "USD charged on the platform keys (BYOK and free models add 0), exact: summed in nano-USD.",
    ["model", "provider"],
    1e9,
  ).register(this.registry);
  private readonly failovers = new CounterFamily(
    "gateway_failovers_total",
    "Failed upstream attempts after which the request moved on to another attempt, by the provider that failed.",
    ["provider"],
  ).register(this.registry);
  private readonly limited = new CounterFamily("gateway_rate_limited_total", "429 answers, by the tier that refused (key|ip|model|provider).", [
    "tier",
  ]).register(this.registry);
  private readonly affinity = new CounterFamily(
    "gateway_cache_affinity_total",
    "Requests of a conversation served by its endpoint (hit) or by another, first turns included (miss); models with one endpoint not counted.",
    ["result"],
  ).register(this.registry);
  private readonly mcpCalls = new CounterFamily("gateway_mcp_calls_total", "MCP tool calls, by configured server and tool, and how they ended.", [
    "server",
    "tool",
    "outcome",
  ]).register(this.registry);
  private readonly mcpDuration = new HistogramFamily("gateway_mcp_call_duration_seconds", "An MCP tool call's upstream time.", ["server"], LONG).register(
    this.registry,
  );
  private readonly guardrails = new CounterFamily(
    "gateway_guardrail_hits_total",
    "Secret guardrail hits (docs/guardrails.md), by rule, action (block|redact|log) and direction (request|response); each counted once per request.",
    ["rule", "action", "direction"],
  ).register(this.registry);
  private readonly shapes = new Map<string, RequestSeries>();
  private readonly upstreams = new Map<string, HistogramSeries>();
  private readonly usages = new Map<string, UsageSeries>();
  private lastShape: { route: string; status: number; model: string; provider: string; series: RequestSeries } | null = null;
  private lastUsage: { model: string; provider: string; series: UsageSeries } | null = null;

  constructor(source: CircuitSource) {
    new GaugeFamily("gateway_circuit_open", "1 while a circuit breaker of the provider is open or half-open.", ["provider"], () =>
      source.circuits().map((c) => ({ labels: [c.provider], value: c.open ? 1 : 0 })),
    ).register(this.registry);
    new GaugeFamily("gateway_inflight_requests", "Requests being served now.", [], () => [{ labels: [], value: source.inflight() }]).register(this.registry);
    processMetrics();
  }

  /** One upstream attempt's wait, in ms. */
  upstreamWait(provider: string, ms: number): void {
    let s = this.upstreams.get(provider);
    if (!s) this.upstreams.set(provider, (s = this.upstream.at(provider, [provider])));
    this.upstream.observe(s, ms / 1000);
  }

  /** A finished request. */
  record(rec: RequestRecord): void {
    const model = rec.model ?? NO_MODEL;
    const provider = rec.provider ?? NO_PROVIDER;
    const shape = this.shape(rec.route, rec.status, model, provider);
    shape.requests.value++;
    this.duration.observe(shape.duration, rec.endMs / 1000);
    // Only answers the gateway wrote itself (chat, responses, embeddings) have a head time and an overhead.
    if (rec.headMs >= 0) this.overhead.observe(shape.overhead, rec.overheadMs() / 1000);
    if (rec.status === 429) this.counter(this.limited, rec.limitedTier ?? "provider").value++;
    if (rec.affinity) this.counter(this.affinity, rec.affinity).value++; // upstream/affinity.ts
    if (rec.mcp) this.mcpCall(rec.mcp);
    for (const h of rec.guardrails) this.counter(this.guardrails, h.rule, h.action, h.direction).value++;
    const s = rec.settled;
    if (!s) return;
    // A failed attempt followed by another: a failover away from that provider (observability/request-line.ts counts the same).
    for (let i = 0; i < s.attempts.length - 1; i++) if (s.attempts[i]!.outcome !== "success") this.counter(this.failovers, s.attempts[i]!.provider).value++;
    if (!s.provider) return;
    const u = this.usage(model, s.provider);
    u.prompt.value += s.prompt;
    u.completion.value += s.completion;
    u.cost.value += s.cost;
  }

  /** An MCP tool call; its names are configured ones only (endpoints/mcp/call.ts labels anything else `-`). */
  private mcpCall(c: NonNullable<RequestRecord["mcp"]>): void {
    this.counter(this.mcpCalls, c.server, c.tool, c.outcome).value++;
    if (c.ms >= 0) this.mcpDuration.observe(this.mcpDuration.at(c.server, [c.server]), c.ms / 1000);
  }

  /** Prometheus text: the process's metrics, then this gateway's. */
  async render(): Promise<string> {
    return (await processMetrics().metrics()) + "\n" + (await this.registry.metrics());
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  private shape(route: string, status: number, model: string, provider: string): RequestSeries {
    // Most requests have the shape of the one before: compared field by field, no key built.
    const last = this.lastShape;
    if (last && last.route === route && last.status === status && last.model === model && last.provider === provider) return last.series;
    const series = this.shapeOf(route, status, model, provider);
    this.lastShape = { route, status, model, provider, series };
    return series;
  }

  private shapeOf(route: string, status: number, model: string, provider: string): RequestSeries {
    const key = `${route}\u0000${status}\u0000${model}\u0000${provider}`;
    let s = this.shapes.get(key);
    if (!s) {
      s = {
        requests: this.requests.at(key, [route, String(status), model, provider]),
        duration: this.duration.at(route, [route]),
        overhead: this.overhead.at(provider, [provider]),
      };
      this.shapes.set(key, s);
    }
    return s;
  }

  private usage(model: string, provider: string): UsageSeries {
    const last = this.lastUsage;
    if (last && last.model === model && last.provider === provider) return last.series;
    const series = this.usageOf(model, provider);
    this.lastUsage = { model, provider, series };
    return series;
  }

  private usageOf(model: string, provider: string): UsageSeries {
    const key = `${model}\u0000${provider}`;
    let u = this.usages.get(key);
    if (!u) {
      u = {
        prompt: this.counter(this.tokens, model, provider, "prompt"),
        completion: this.counter(this.tokens, model, provider, "completion"),
        cost: this.counter(this.cost, model, provider),
      };
      this.usages.set(key, u);
    }
    return u;
  }

  private counter(family: CounterFamily, ...labels: string[]): CounterSeries {
    return family.at(labels.join("\u0000"), labels);
  }
}
