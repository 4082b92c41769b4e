/** Reads Prometheus text format, as a scraper would, for asserting on GET /metrics. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The value as written, for exact decimal checks. */
  raw: string;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === "n" ? "\n" : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]), raw: m[3]! });
  }
  return out;
}

/** The value of the series with exactly these labels; 0 when it does not exist yet (a counter not yet moved). */
export function sampleOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels);
  const s = samples.find((x) => x.name === name && Object.keys(x.labels).length === want.length && want.every(([k, v]) => x.labels[k] === v));
  return s ? s.value : 0;
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await fetch(`${url}/metrics`, { headers });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${await res.text()}`);
  return parseMetrics(await res.text());
}
