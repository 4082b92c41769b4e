/**
 * Counters, gauges and histograms as plain numbers, handed to a prom-client Registry as
 * metric objects (`get()`), which renders them in Prometheus text. prom-client's own
 * `labels(...).inc()` hashes the label object on every call; here a request finds its series
 * with one Map lookup on a key the caller built, and adds to numbers (docs/observability.md,
 * "Cost on the request path"). Rendering happens only when /metrics is scraped.
 */
import type { Metric, Registry } from "prom-client";

type Labels = Record<string, string | number>;
interface Value {
  value: number;
  labels: Labels;
  metricName?: string;
}
interface Snapshot {
  name: string;
  help: string;
  type: string;
  values: Value[];
  aggregator: string;
}

/** The part of prom-client's metric interface its Registry uses to render. */
abstract class Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge" | "histogram",
    protected readonly labelNames: readonly string[],
  ) {}

  abstract values(): Value[];

  get(): Snapshot {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: "sum" };
  }

  register(registry: Registry): this {
    registry.registerMetric(this as unknown as Metric);
    return this;
  }

  protected labelsOf(values: readonly string[]): Labels {
    const labels: Labels = {};
    this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
    return labels;
  }
}

export interface CounterSeries {
  value: number;
}

/** A counter; `scale` turns the stored integer into the exposed unit (nano-USD → USD). */
export class CounterFamily extends Family {
  private series = new Map<string, { value: number; labels: Labels }>();

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly scale = 1,
  ) {
    super(name, help, "counter", labelNames);
  }

  /** The series for these label values; `key` is any string unique to them (callers cache it). */
  at(key: string, labelValues: readonly string[]): CounterSeries {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { value: 0, labels: this.labelsOf(labelValues) }));
    return s;
  }

  values(): Value[] {
    return [...this.series.values()].map((s) => ({ value: this.scale === 1 ? s.value : s.value / this.scale, labels: s.labels }));
  }
}

/** A gauge read when scraped. */
export class GaugeFamily extends Family {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly read: () => Array<{ labels: readonly string[]; value: number }>,
  ) {
    super(name, help, "gauge", labelNames);
  }

  values(): Value[] {
    return this.read().map((v) => ({ value: v.value, labels: this.labelsOf(v.labels) }));
  }
}

export interface HistogramSeries {
  counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramFamily extends Family {
  private series = new Map<string, HistogramSeries & { labels: Labels }>();

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, "histogram", labelNames);
  }

  at(key: string, labelValues: readonly string[]): HistogramSeries {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { counts: new Float64Array(this.bounds.length), sum: 0, count: 0, labels: this.labelsOf(labelValues) }));
    return s;
  }

  /** Adds one observation (seconds) to a series. */
  observe(s: HistogramSeries, v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) s.counts[i]!++;
    s.sum += v;
    s.count++;
  }

  values(): Value[] {
    const out: Value[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => out.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: (acc += s.counts[i]!) }));
      out.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
      out.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  }
}
