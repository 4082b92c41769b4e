/**
 * The scanner: the keyword prefilter, then each hit rule's regex (re2js: linear time on any
 * input, docs/guardrails.md "Cost") in a window around the keyword, then the checks a regex
 * cannot make (entropy, placeholders). Hits never carry the secret's text, only where it is.
 */
import { RE2JS } from "re2js";
import { Keywords, type KeywordHit } from "./keywords.js";
import { BUILTIN_RULES, type RuleSpec } from "./rules.js";

/** A secret found: the rule's name and the secret's range in the text scanned. */
export interface SecretHit {
  rule: string;
  start: number;
  end: number;
}

interface Rule {
  spec: RuleSpec;
  /** Without capture groups: re2js then runs its DFA, several times faster; the capturing `regex` runs only on a match. */
  test: RE2JS;
  regex: RE2JS;
  placeholder: RE2JS | null;
  /** A check in plain code before the regex runs at a keyword: most keyword hits in ordinary text end here. */
  gate(text: string, at: number): boolean;
}

/** A rule the config adds (`guardrails.secrets.rules`): no keywords, so its regex runs over the whole text. */
export interface CustomRule {
  name: string;
  regex: string;
}

export class Scanner {
  private readonly rules: Rule[];
  private readonly custom: Rule[];
  readonly keywords: Keywords;

  constructor(rules: readonly RuleSpec[], custom: readonly CustomRule[] = []) {
    this.rules = rules.map(compile);
    this.custom = custom.map((c) => compile({ name: c.name, keywords: [], pattern: c.regex, span: 0 }));
    this.keywords = new Keywords(rules.flatMap((r, rule) => r.keywords.map((keyword) => ({ keyword, rule }))));
  }

  /** The secrets in `text`, sorted and not overlapping. */
  scan(text: string): SecretHit[] {
    return this.scanFrom(text, 0).hits;
  }

  /**
   * The secrets in `text`, and `hold`: the index from which the end of the text may still
   * become (part of) a secret when more text follows (guardrails/stream.ts); text.length when
   * nothing is pending. Matches ending before `from` are not reported.
   */
  scanFrom(text: string, from: number): { hits: SecretHit[]; hold: number } {
    const found: SecretHit[] = [];
    const { hits, state } = this.keywords.find(text);
    let hold = text.length - this.keywords.pending(state);
    for (const [rule, at] of byRule(hits)) {
      const r = this.rules[rule]!;
      const before = found.length;
      const open = r.spec.before ? searchWindows(r, text, at, found) : anchoredAt(r, text, at, found);
      hold = Math.min(hold, open ?? text.length, pendingFrom(r, text, at, found.slice(before), text.length));
    }
    for (const r of this.custom) matches(r, text, 0, text.length, found);
    return { hits: settle(found.filter((h) => h.end > from)), hold };
  }
}

/** Keyword positions per rule, ascending. */
function byRule(hits: KeywordHit[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const { at, rule } of hits) {
    const list = out.get(rule);
    if (list) list.push(at);
    else out.set(rule, [at]);
  }
  return out;
}

/**
 * A rule whose match starts at its keyword: one anchored attempt per keyword hit, which fails
 * within a few characters on ordinary text (the word "token" in prose). Returns the start of
 * a match that reaches the end of the text, else null.
 */
function anchoredAt(r: Rule, text: string, at: number[], found: SecretHit[]): number | null {
  let open: number | null = null;
  let after = 0;
  for (const a of at) {
    if (a < after || !r.gate(text, a)) continue;
    const hi = Math.min(text.length, a + r.spec.span);
    const slice = text.slice(a, hi);
    if (!r.test.matcher(slice).lookingAt()) continue;
    const m = r.regex.matcher(slice);
    if (!m.lookingAt()) continue;
    after = a + m.end();
    if (after === text.length) open = a;
    record(r, text, a, m, found);
  }
  return open;
}

/** A rule whose match may start before its keyword: its regex searches the windows around the hits, overlapping ones merged. */
function searchWindows(r: Rule, text: string, at: number[], found: SecretHit[]): number | null {
  let open: number | null = null;
  let lo = -1;
  let hi = -1;
  const flush = () => {
    if (hi > lo) open = matches(r, text, lo, hi, found) ?? open;
  };
  for (const a of at) {
    const l = Math.max(0, a - (r.spec.before ?? 0));
    const h = Math.min(text.length, a + r.spec.span);
    if (l <= hi) hi = Math.max(hi, h);
    else (flush(), (lo = l), (hi = h));
  }
  flush();
  return open;
}

function record(r: Rule, text: string, lo: number, m: ReturnType<RE2JS["matcher"]>, found: SecretHit[]): void {
  const g = r.spec.group ?? 0;
  const start = m.start(g);
  const end = m.end(g);
  if (start < 0 || !accepted(r, text.slice(lo + start, lo + end))) return;
  found.push({ rule: r.spec.name, start: lo + start, end: lo + end });
}

/** Where the text must be held from for this rule: a keyword near the end that no finished match explains yet. */
function pendingFrom(r: Rule, text: string, keywordsAt: number[], found: SecretHit[], length: number): number {
  const settleBy = r.spec.settle ?? r.spec.span;
  let hold = length;
  for (let i = keywordsAt.length - 1; i >= 0; i--) {
    const at = keywordsAt[i]!;
    if (at + settleBy <= length) break;
    if (!r.gate(text, at)) continue; // `task-` is no `sk-` key, prose's "secret is" no assignment
    if (found.some((h) => h.end > at && h.start <= at + settleBy && h.end < length)) continue; // explained by a finished match
    hold = Math.min(hold, Math.max(0, at - (r.spec.before ?? 0)));
  }
  return hold;
}

/**
 * Adds the rule's secrets in text[lo, hi) to `found`; returns the start of a match that
 * reaches the end of the text (it may go on in text not read yet), else null.
 */
function matches(r: Rule, text: string, lo: number, hi: number, found: SecretHit[]): number | null {
  const m = r.regex.matcher(text.slice(lo, hi));
  let open: number | null = null;
  let pos = 0;
  while (pos <= hi - lo && m.find(pos)) {
    pos = Math.max(m.end(), m.start() + 1);
    if (lo + m.end() === text.length) open = lo + m.start();
    record(r, text, lo, m, found);
  }
  return open;
}

function accepted(r: Rule, secret: string): boolean {
  if (r.placeholder && r.placeholder.matcher(secret).find()) return false;
  return r.spec.entropy === undefined || entropy(secret) >= r.spec.entropy;
}

/** Sorted by start; overlapping hits merged into the first rule's, a generic rule's hit yielding to a specific one. */
function settle(found: SecretHit[]): SecretHit[] {
  if (found.length < 2) return found;
  const generic = new Set(BUILTIN_RULES.filter((r) => r.generic).map((r) => r.name));
  found.sort((a, b) => a.start - b.start || Number(generic.has(a.rule)) - Number(generic.has(b.rule)));
  const out: SecretHit[] = [];
  for (const h of found) {
    const last = out[out.length - 1];
    if (!last || h.start >= last.end) out.push({ ...h });
    else if (generic.has(last.rule) && !generic.has(h.rule)) out[out.length - 1] = { rule: h.rule, start: last.start, end: Math.max(last.end, h.end) };
    else last.end = Math.max(last.end, h.end);
  }
  return out;
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

function compile(spec: RuleSpec): Rule {
  return {
    spec,
    test: RE2JS.compile(uncaptured(spec.pattern)),
    regex: RE2JS.compile(spec.pattern),
    placeholder: spec.placeholder ? RE2JS.compile(spec.placeholder, RE2JS.CASE_INSENSITIVE) : null,
    gate: gateOf(spec),
  };
}

const WORD = /[A-Za-z0-9_]/;

/** The pattern with every capture group made non-capturing (`(x)` → `(?:x)`); escapes and classes left alone. */
function uncaptured(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      out += c + (pattern[++i] ?? "");
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    out += c === "(" && !inClass && pattern[i + 1] !== "?" ? "(?:" : c;
  }
  return out;
}

/** A pattern starting `\b` needs a non-word character before the keyword; `near` needs one of its characters soon after it. */
function gateOf(spec: RuleSpec): (text: string, at: number) => boolean {
  const boundary = spec.pattern.startsWith("\\b");
  const near = spec.near;
  const assignment = spec.assignment === true;
  return (text, at) => {
    if (boundary && at > 0 && WORD.test(text[at - 1]!) && !escaped(text, at - 1)) return false;
    if (assignment) return assignmentAt(text, at);
    if (!near) return true;
    const end = Math.min(text.length, at + near.within);
    for (let i = at; i < end; i++) if (near.chars.includes(text[i]!)) return true;
    return end === text.length; // the text may go on (a stream): let the regex decide
  };
}

/** Why `pattern` is not a regex re2js runs (a config's custom rule), or null. */
export function checkPattern(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const isName = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
const isQuote = (c: number) => c === 34 || c === 39 || c === 96;
const isSpace = (c: number) => c === 32 || c === 9;
/** Not a value character in the generic rule's class: white space, quotes, `;,\()<>{}[]`. */
const NOT_VALUE = new Set([..." \t\n\r\"'`;,\\()<>{}[]"].map((ch) => ch.charCodeAt(0)));

/** `<name><quote?> <op> <quote?><10 value characters>` starts at `at`, or the text ends before it could be decided. */
function assignmentAt(text: string, at: number): boolean {
  const len = text.length;
  let i = at;
  const skip = (ok: (c: number) => boolean, most: number) => {
    for (let n = 0; i < len && n < most && ok(text.charCodeAt(i)); n++) i++;
  };
  skip(isName, 48);
  skip((c) => c === 92 || isQuote(c), 2);
  skip(isSpace, 8);
  if (i >= len) return true;
  const op = text.charCodeAt(i);
  if (op !== 58 && op !== 61) return false; // `:` or `=` (`:=` and `=>` go on with `=` and `>`)
  i++;
  skip((c) => c === 61 || c === 62, 1);
  skip(isSpace, 8);
  skip((c) => c === 92 || isQuote(c), 2);
  const start = i;
  let code = true; // `res.body.access_token`: a property path in code, not a secret
  let dots = 0;
  skip((c) => {
    if (NOT_VALUE.has(c)) return false;
    if (c === 46) dots++;
    else if (!(isName(c) || c === 36) || (i === start && c >= 48 && c <= 57)) code = false;
    return true;
  }, 200);
  if (i >= len) return true;
  return i - start >= 10 && !(code && dots > 0);
}

/** A JSON escape (`\\n`, `\\t`, `\\r`) ends at `i`: in a raw body it stands for a space, a word boundary. */
function escaped(text: string, i: number): boolean {
  const c = text[i];
  return (c === "n" || c === "t" || c === "r") && i > 0 && text[i - 1] === "\\";
}

/** `text` with each hit replaced by `[REDACTED:<rule>]`. */
export function redact(text: string, hits: readonly SecretHit[]): string {
  let out = "";
  let at = 0;
  for (const h of hits) ((out += text.slice(at, h.start) + `[REDACTED:${h.rule}]`), (at = h.end));
  return out + text.slice(at);
}
