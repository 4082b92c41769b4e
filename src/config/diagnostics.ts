/**
 * Config problems as an operator reads them: one line each, `file:line: path: what is
 * expected, got what`. Lines come from the YAML source (parseDocument + LineCounter), read
 * again only when something is wrong; what is expected comes from the zod schema itself, so
 * the message cannot drift from the check.
 */
import { relative } from "node:path";
import type { z } from "zod";

export type PathSeg = string | number;

/** Finds the YAML line of a path (the key's own line where it exists, else its deepest parent's). */
export type LineOf = (path: PathSeg[]) => number | undefined;

export interface Problem {
  path: PathSeg[];
  message: string;
}

/** `${VAR}` whose variable is not set and has no `:-default`. */
export function unsetProblem(name: string, path: PathSeg[]): Problem {
  return { path, message: `\${${name}} is not set; set it, or write \${${name}:-} to leave the value out when it is unset` };
}

/** The lines of one error message; `file` undefined for a config given in code. */
export function formatProblems(problems: Problem[], file?: string, lineOf?: LineOf): string[] {
  const shown = file ? (relative(process.cwd(), file).startsWith("..") ? file : relative(process.cwd(), file)) : "config";
  return problems.map((p) => {
    const line = lineOf?.(p.path);
    return `${shown}${line ? `:${line}` : ""}: ${p.path.join(".") || "(top level)"}: ${p.message}`;
  });
}

/** zod's issues, each turned into what the schema expects at that path and what it got. */
export function problemsOf(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, data: unknown): Problem[] {
  return issues.flatMap((issue): Problem[] => {
    if (issue.code === "unrecognized_keys") {
      const known = Object.keys(shapeOf(schemaAt(schema, issue.path)) ?? {});
      return issue.keys.map((key) => ({ path: [...issue.path, key] as PathSeg[], message: unknownKey(key, known) }));
    }
    const path = issue.path as PathSeg[];
    if (issue.code === "custom") return [{ path, message: issue.message }];
    if (issue.code === "invalid_key") return [{ path, message: `invalid name: ${lowerFirst(issue.issues[0]?.message ?? issue.message)}` }];
    const value = valueAt(data, path);
    if (value === undefined && issue.code === "invalid_type") return [{ path, message: `required: expected ${expected(schemaAt(schema, path))}` }];
    return [{ path, message: `${expectation(issue, schemaAt(schema, path))}, got ${show(value)}` }];
  });
}

function expectation(issue: z.core.$ZodIssue, at: z.ZodType | undefined): string {
  if (issue.code === "too_small" && issue.origin === "array") return `expected at least ${issue.minimum} item(s)`;
  // The schema's own words ("Expected a vendor/model id") say more than "invalid string".
  if (issue.code === "invalid_format" && issue.format === "regex") return lowerFirst(issue.message);
  return at ? `expected ${expected(at)}` : lowerFirst(issue.message);
}

export function unknownKey(key: string, known: string[]): string {
  const near = nearMiss(key, known);
  if (near) return `unknown key (did you mean ${near}?)`;
  return known.length ? `unknown key; expected one of ${known.join(", ")}` : "unknown key";
}

/**
 * A key that is a known one written differently: same letters ignoring case, `_` and `-`
 * (`baseURL`, `api_key`), or one edit or swap away (`prot`) when long enough to be a typo
 * rather than another word.
 */
export function nearMiss(key: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const k = norm(key);
  return known.find((c) => norm(c) === k) ?? known.find((c) => k.length >= 4 && editDistance(k, norm(c)) <= 1);
}

/** Levenshtein distance with adjacent swaps counting as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Line numbers from the YAML (or JSON) text. `prefix` is where the config sits in the file
 * (`gateway` in package.json); `mask` swaps `${VAR}` placeholders as the loader did, so the
 * text parses the same way.
 */
export async function yamlLines(content: string, prefix: PathSeg[], mask: (text: string) => string): Promise<LineOf> {
  const { LineCounter, parseDocument, isMap, isScalar, isSeq } = await import("yaml");
  const counter = new LineCounter();
  const doc = parseDocument(mask(content), { lineCounter: counter });
  return (path) => {
    let node: unknown = doc.contents;
    let line: number | undefined;
    for (const seg of [...prefix, ...path]) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        if (isScalar(pair.key) && pair.key.range) line = counter.linePos(pair.key.range[0]).line;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === "number") {
        node = node.items[seg];
        const range = (node as { range?: [number, number, number] } | undefined)?.range;
        if (!range) break;
        line = counter.linePos(range[0]).line;
      } else break;
    }
    return line;
  };
}

// ---- reading the schema ---------------------------------------------------------------

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  format?: string;
  checks?: Array<{ _zod: { def: Check } }>;
};
type Check = { check: string; value?: number; inclusive?: boolean; format?: string };

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Through defaults, optionals and pipes to the schema that checks the value. */
function unwrap(s: z.ZodType): z.ZodType {
  const d = defOf(s);
  if (d.innerType) return unwrap(d.innerType);
  if (d.type === "pipe" && d.in) return unwrap(d.in);
  return s;
}

function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(schema);
  for (const seg of path) {
    const d: Def = defOf(s);
    s = d.shape ? d.shape[String(seg)] : (d.valueType ?? d.element);
    if (!s) return undefined;
    s = unwrap(s);
  }
  return s;
}

const shapeOf = (s: z.ZodType | undefined) => (s ? defOf(s).shape : undefined);

/** "an integer from 0 to 65535", "one of strict, openai, passthrough", "a URL", ... */
function expected(s: z.ZodType | undefined): string {
  if (!s) return "a valid value";
  const d = defOf(unwrap(s));
  switch (d.type) {
    case "number":
      return numberText(d.checks?.map((c) => c._zod.def) ?? []);
    case "boolean":
      return "true or false";
    case "enum":
      return `one of ${Object.values(d.entries ?? {}).join(", ")}`;
    case "string":
      return d.format === "url" ? "a URL" : "a string";
    case "union":
      return (d.options ?? []).map(expected).join(" or ");
    case "array":
      return "a list";
    case "object":
    case "record":
      return "a mapping";
    default:
      return `a ${d.type}`;
  }
}

function numberText(checks: Check[]): string {
  const int = checks.some((c) => c.format === "safeint" || c.format === "int32");
  const min = checks.find((c) => c.check === "greater_than");
  const max = checks.find((c) => c.check === "less_than");
  const noun = int ? "integer" : "number";
  if (min && max) return `${int ? "an" : "a"} ${noun} from ${min.value} to ${max.value}`;
  if (min?.value === 0) return `a ${min.inclusive ? "non-negative" : "positive"} ${noun}`;
  if (min) return `${int ? "an" : "a"} ${noun} ${min.inclusive ? "of at least" : "above"} ${min.value}`;
  if (max) return `${int ? "an" : "a"} ${noun} of at most ${max.value}`;
  return `${int ? "an" : "a"} ${noun}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const seg of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return v;
}

function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "a list";
  if (v !== null && typeof v === "object") return "a mapping";
  return String(v);
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * A YAML syntax error as `file:line:col: what`, then the file's own line and a caret. The
 * parser saw `${VAR}` swapped for inert tokens (config/config.ts `mask`): its message and column
 * are put back in terms of the text the operator wrote, never the tokens.
 */
export function yamlSyntaxError(file: string, content: string, masked: string, err: unknown, saved: string[]): string {
  const e = err as { message?: string; linePos?: Array<{ line: number; col: number }> };
  const what = (e.message ?? String(err)).split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const pos = e.linePos?.[0];
  const shown = shownFile(file);
  if (!pos) return `${shown}: ${restoreTokens(what, saved)}`;
  const line = content.split("\n")[pos.line - 1] ?? "";
  const col = originalColumn(masked.split("\n")[pos.line - 1] ?? "", pos.col, saved);
  return `${shown}:${pos.line}:${col}: ${restoreTokens(what, saved)}\n  ${line}\n  ${" ".repeat(Math.max(0, col - 1))}^`;
}

const TOKEN = /__GATEWAY_ENV_(\d+)__/g;

const restoreTokens = (text: string, saved: string[]) => text.replace(TOKEN, (_m, i: string) => saved[Number(i)] ?? "");

/** A column of the masked line, as a column of the line the operator wrote. */
function originalColumn(maskedLine: string, col: number, saved: string[]): number {
  let shift = 0;
  for (const m of maskedLine.matchAll(TOKEN)) {
    if (m.index >= col - 1) break;
    shift += (saved[Number(m[1])]?.length ?? m[0].length) - m[0].length;
  }
  return col + shift;
}

function shownFile(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel.startsWith("..") ? file : rel;
}
