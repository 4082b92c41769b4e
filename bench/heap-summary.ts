/**
 * A V8 heap snapshot (.heapsnapshot, as `--heapsnapshot-signal` writes it) summed by kind:
 * an object by its constructor, a closure by its function's name, everything else by its V8
 * type. Two snapshots diffed say what N open streams hold, per stream:
 *   node dist/bench/heap-summary.js <idle.heapsnapshot> <open.heapsnapshot> [streams]
 */
import { readFileSync } from "node:fs";
import { isMain } from "./main.js";

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Per kind: how many objects, how many bytes (self size). */
export type HeapSummary = Map<string, { count: number; bytes: number }>;

/** Kinds whose `name` is a constructor or function name, not the object's content. */
const NAMED = new Set(["object", "closure", "native", "regexp"]);

export function summarise(path: string): HeapSummary {
  const raw = JSON.parse(readFileSync(path, "utf8")) as RawSnapshot;
  const fields = raw.snapshot.meta.node_fields;
  const types = raw.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf("type"), fields.indexOf("name"), fields.indexOf("self_size")];
  const out: HeapSummary = new Map();
  for (let i = 0; i < raw.nodes.length; i += width) {
    const type = types[raw.nodes[i + typeAt]!]!;
    const key = NAMED.has(type) ? `${type}:${raw.strings[raw.nodes[i + nameAt]!]}` : type;
    const entry = out.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += raw.nodes[i + sizeAt]!;
    out.set(key, entry);
  }
  return out;
}

export const totalBytes = (s: HeapSummary): number => [...s.values()].reduce((n, e) => n + e.bytes, 0);

/** The kinds that grew most from `before` to `after`, per stream, as text lines. */
export function diffLines(before: HeapSummary, after: HeapSummary, streams: number, top = 30): string[] {
  const rows = [...after].map(([key, a]) => {
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: (a.count - b.count) / streams, bytes: (a.bytes - b.bytes) / streams };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  const total = (totalBytes(after) - totalBytes(before)) / streams;
  const lines = [`live heap per stream: ${(total / 1024).toFixed(1)} KB (${totalBytes(before) >> 20} MB -> ${totalBytes(after) >> 20} MB)`];
  for (const r of rows.slice(0, top)) lines.push(`${r.bytes.toFixed(0).padStart(7)} B ${r.count.toFixed(1).padStart(6)}x  ${r.key.slice(0, 90)}`);
  return lines;
}

if (isMain(import.meta.url)) {
  const [idle, open, streams] = process.argv.slice(2);
  if (!idle || !open) throw new Error("usage: heap-summary <idle.heapsnapshot> <open.heapsnapshot> [streams]");
  process.stdout.write(`${diffLines(summarise(idle), summarise(open), Number(streams ?? 1)).join("\n")}\n`);
}
