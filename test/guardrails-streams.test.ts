/**
 * The secret guardrail on streamed answers (contract §18, docs/guardrails.md "Streams"): a
 * secret split across 2, 3 or 17 chunks is caught with a bounded hold-back; `redact` rewrites
 * it before any of its characters leave, `block` ends the stream before its first character,
 * and the text held back never exceeds the bound, whatever the stream.
 */
import { describe, expect, it } from "vitest";
import { guardFor } from "../src/guardrails/policy.js";
import { HOLD_CHARS, StreamCheck } from "../src/guardrails/stream.js";
import { chars, SAMPLES } from "./helpers/secret-samples.js";

type Delta = { content?: string; finish_reason?: string };

/** `text` cut into `n` pieces of near-equal length (a secret inside falls across several). */
function pieces(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  return Array.from({ length: n }, (_, i) => text.slice(i * size, (i + 1) * size)).filter(Boolean);
}

function check(mode: "block" | "redact" | "log") {
  return { guard: guardFor({ mode, direction: ["response"] })!, emitted: [] as Delta[] };
}

function run(mode: "block" | "redact" | "log", parts: string[]) {
  const c = check(mode);
  const s = new StreamCheck<Delta>(c.guard);
  let error: unknown;
  try {
    for (const p of parts) c.emitted.push(...s.push({ content: p }));
    c.emitted.push(...s.push({ finish_reason: "stop" }), ...s.end());
  } catch (err) {
    error = err;
  }
  return { text: c.emitted.map((d) => d.content ?? "").join(""), error, hits: c.guard.hits, emitted: c.emitted };
}

describe.each([2, 3, 17])("a secret split across %i chunks", (n) => {
  it.each(SAMPLES.map((s, i) => [`${s.rule} #${i}`, s] as const))("%s: redacted whole, no piece of it sent", (_, s) => {
    const text = `Here it is: ${s.text}\nDone.`;
    const out = run("redact", pieces(text, n));
    expect(out.text).toBe(text.replace(s.secret, `[REDACTED:${s.rule}]`));
    expect(out.hits).toEqual([{ rule: s.rule, action: "redact", direction: "response" }]);
  });

  it.each(SAMPLES.map((s, i) => [`${s.rule} #${i}`, s] as const))("%s: block ends the stream before the secret's first character", (_, s) => {
    const text = `Here it is: ${s.text}\nDone.`;
    const out = run("block", pieces(text, n));
    expect((out.error as { code?: string })?.code).toBe("guardrail_blocked");
    expect(text.slice(0, text.indexOf(s.secret)).startsWith(out.text)).toBe(true);
  });
});

describe("the hold-back", () => {
  it("passes ordinary text through as it comes, item by item", () => {
    const c = check("redact");
    const s = new StreamCheck<Delta>(c.guard);
    for (const w of "The answer is forty-two, and nothing else is in it.".split(" ")) expect(s.push({ content: `${w} ` })).toHaveLength(1);
  });

  it("keeps an item whose end may start a secret, and lets it go when the next settles it", () => {
    const c = check("redact");
    const s = new StreamCheck<Delta>(c.guard);
    expect(s.push({ content: "key: AKIA" })).toEqual([]);
    expect(s.push({ content: "WORD and more words." }).map((d) => d.content)).toEqual(["key: AKIA", "WORD and more words."]);
  });

  it("log mode forwards the secret and records it", () => {
    const s = SAMPLES[4]!;
    const out = run("log", pieces(s.text, 3));
    expect(out.text).toBe(s.text);
    expect(out.hits).toEqual([{ rule: s.rule, action: "log", direction: "response" }]);
  });

  it(`never holds more than ${HOLD_CHARS} characters (constant memory per stream)`, () => {
    const c = check("redact");
    const s = new StreamCheck<Delta>(c.guard);
    let pushed = 0;
    let sent = 0;
    // A private key header that never ends, then 1 MB of base64: held only up to the bound.
    for (const p of ["-----BEGIN RSA PRIVATE KEY-----\n", ...pieces(chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/", 1_000_000, 3), 1000)]) {
      pushed += p.length;
      sent += s.push({ content: p }).reduce((n, d) => n + (d.content ?? "").length, 0);
      expect(pushed - sent).toBeLessThanOrEqual(HOLD_CHARS + 1000);
    }
  });

  it("redacts across items carrying other fields (tool arguments)", () => {
    const g = guardFor({ mode: "redact", direction: ["response"] })!;
    const s = new StreamCheck<Record<string, any>>(g);
    const secret = SAMPLES[4]!.secret;
    const calls = pieces(`{"token":"${secret}"}`, 4).map((a) => ({ tool_calls: [{ index: 0, function: { arguments: a } }] }));
    const out = [...calls.flatMap((d) => s.push(d)), ...s.end()];
    expect(out.map((d) => d.tool_calls[0].function.arguments).join("")).toBe(`{"token":"[REDACTED:github-token]"}`);
  });
});
