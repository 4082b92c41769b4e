/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by module,
 * and inclusive time by module (a module counts once per sample if it is anywhere on the
 * stack), as percentages of busy (non-idle) time.
 *   node dist/bench/cpuprofile-summary.js <file.cpuprofile> [top=15]
 */
import { readFileSync } from "node:fs";
import { isMain } from "./main.js";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Row {
  name: string;
  ms: number;
  pct: number;
}

export interface Summary {
  busyMs: number;
  idleMs: number;
  functions: Row[];
  modulesSelf: Row[];
  modulesInclusive: Row[];
  /** The project's own functions (src/, providers/) with everything they call. */
  ownInclusive: Row[];
}

/** "zod", "@smithy/x", "src/chat.js", "node:internal/streams", or a V8 pseudo-frame. */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const nm = url.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const dist = /\/dist\/((?:src|providers)\/.*)$/.exec(url);
  if (dist) return dist[1]!;
  if (url.startsWith("node:")) return url.split("/").slice(0, 2).join("/");
  return url.replace(/^file:\/\//, "");
}

// "(program)" is native work outside JS (event loop, syscalls): busy, so it stays in.
const IDLE = new Set(["(idle)"]);

function rows(map: Map<string, number>, busyMs: number): Row[] {
  return [...map.entries()].map(([name, ms]) => ({ name, ms, pct: (100 * ms) / busyMs })).sort((a, b) => b.ms - a.ms);
}

export function summarise(profile: CpuProfile): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfFn = new Map<string, number>();
  const selfMod = new Map<string, number>();
  const inclMod = new Map<string, number>();
  const inclOwn = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (IDLE.has(functionName) && !url) return void (idleUs += dt);
    busyUs += dt;
    const fn = `${functionName || "(anonymous)"} ${moduleOf(url, functionName)}${url ? `:${lineNumber + 1}` : ""}`;
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + dt);
    const mod = moduleOf(url, functionName);
    selfMod.set(mod, (selfMod.get(mod) ?? 0) + dt);
    const seen = new Set<string>();
    const own = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === "(root)") continue;
      const m = moduleOf(f.url, f.functionName);
      seen.add(m);
      if (/^(src|providers)\//.test(m)) own.add(`${f.functionName || "(anonymous)"} ${m}:${f.lineNumber + 1}`);
    }
    for (const m of seen) inclMod.set(m, (inclMod.get(m) ?? 0) + dt);
    for (const f of own) inclOwn.set(f, (inclOwn.get(f) ?? 0) + dt);
  });
  const busyMs = busyUs / 1000;
  const toMs = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / 1000]));
  return {
    busyMs,
    idleMs: idleUs / 1000,
    functions: rows(toMs(selfFn), busyMs),
    modulesSelf: rows(toMs(selfMod), busyMs),
    modulesInclusive: rows(toMs(inclMod), busyMs),
    ownInclusive: rows(toMs(inclOwn), busyMs),
  };
}

export function renderSummary(s: Summary, top = 15): string {
  const list = (title: string, rs: Row[]) =>
    [title, ...rs.slice(0, top).map((r) => `  ${r.pct.toFixed(1).padStart(5)} %  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`)].join("\n");
  return [
    `busy ${s.busyMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms (percentages are of busy time)`,
    list("Self time by function:", s.functions),
    list("Self time by module:", s.modulesSelf),
    list("Inclusive time by module (on the stack):", s.modulesInclusive),
    list("Inclusive time of the gateway's own functions:", s.ownInclusive),
  ].join("\n\n");
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: cpuprofile-summary <file.cpuprofile> [top]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  process.stdout.write(`${renderSummary(summarise(profile), Number(process.argv[3] ?? 15))}\n`);
}
