/**
 * The built-in secret rules (docs/guardrails.md "Rules", contract §18): each rule finds the
 * provider's documented key format, lets near-misses through, and runs in linear time on
 * hostile input (re2js, keyword windows).
 */
import { describe, expect, it } from "vitest";
import { Scanner, redact } from "../src/guardrails/engine.js";
import { BUILTIN_RULES } from "../src/guardrails/rules.js";
import { NEAR_MISSES, SAMPLES } from "./helpers/secret-samples.js";

const scanner = new Scanner(BUILTIN_RULES);

describe("each built-in rule", () => {
  it("has at least one true positive here", () => {
    const covered = new Set(SAMPLES.map((s) => s.rule));
    expect(BUILTIN_RULES.map((r) => r.name).filter((n) => !covered.has(n))).toEqual([]);
  });

  it.each(SAMPLES.map((s, i) => [`${s.rule} #${i}`, s] as const))("%s: found, named, and exactly the secret redacted", (_, s) => {
    const hits = scanner.scan(s.text);
    expect(hits.map((h) => h.rule)).toEqual([s.rule]);
    expect(s.text.slice(hits[0]!.start, hits[0]!.end)).toBe(s.secret);
    expect(redact(s.text, hits)).toBe(s.text.replace(s.secret, `[REDACTED:${s.rule}]`));
  });

  it.each(SAMPLES.map((s, i) => [`${s.rule} #${i}`, s] as const))("%s: found in upper or mixed surroundings and twice in one text", (_, s) => {
    const text = `NOTE ${s.text}\n\n${s.text} END`;
    expect(scanner.scan(text).map((h) => h.rule)).toEqual([s.rule, s.rule]);
  });

  it.each(NEAR_MISSES.map((n) => [n.name, n.text] as const))("lets %s through", (_, text) => {
    expect(scanner.scan(text)).toEqual([]);
  });
});

describe("linear time", () => {
  // Inputs built to make a backtracking engine explode: long runs of a rule's alphabet after its keyword.
  const hostile = [
    "token=" + "A".repeat(1_000_000),
    "password: " + "a1".repeat(500_000),
    "-----BEGIN RSA PRIVATE KEY-----" + "A".repeat(1_000_000),
    "eyJ" + "a".repeat(500_000) + ".eyJ" + "b".repeat(499_990),
    "postgres://u:" + "p".repeat(1_000_000),
    ("AKIA".repeat(10) + "sk-ant-api03-" + "ghp_").repeat(20_000),
    "token ".repeat(170_000),
  ];

  // ~0.15 s each on an idle core; 3 s leaves room for a shared machine, while a backtracking engine would take hours.
  it.each(hostile.map((h) => [h.slice(0, 24), h] as const))("1 MB starting %j is scanned in under 3 seconds", (_, text) => {
    expect(text.length).toBeGreaterThanOrEqual(999_990);
    const t0 = performance.now();
    scanner.scan(text);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});
