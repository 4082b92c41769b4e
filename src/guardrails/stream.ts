/**
 * The stream side (docs/guardrails.md "Streams"): a stream's items checked as they are
 * relayed, in constant memory. The text of the items not yet sent is scanned together with a
 * look-behind of what was sent, so a secret split over any number of chunks is seen whole.
 * An item whose text may still become part of a secret (a keyword near its end, or a match
 * that reaches it) is held back, with the items after it, until the next items settle it, at
 * most HOLD_CHARS of text: under `redact` the secret is rewritten in the items that carry it
 * before any of them leaves (the first carries `[REDACTED:<rule>]`, the others lose their
 * part), under `block` the stream ends with an error before the secret's first character.
 */
import { GatewayError } from "../core/errors.js";
import type { SecretHit } from "./engine.js";
import type { Guard } from "./policy.js";
import { slotsOf, type Slot } from "./slots.js";
import { record } from "./hits.js";

/** What was sent, kept for matches that start before the text not yet sent (rules' `before`). */
const LOOK_BEHIND = 512;
/** The most text held back; past it the oldest items leave (a secret longer than this is cut, not caught whole). */
export const HOLD_CHARS = 32 * 1024;

interface Pending<T> {
  item: T;
  slots: Slot[];
  /** Where its text starts in the pending text. */
  at: number;
  length: number;
}

export class StreamCheck<T> {
  private sent = "";
  private pending: Array<Pending<T>> = [];
  private text = "";

  constructor(private readonly guard: Guard) {}

  /** The items that may leave now, in order (none while the end of the text is undecided). */
  push(item: T): T[] {
    const slots = slotsOf(item);
    const length = slots.reduce((n, s) => n + s.text.length, 0);
    this.pending.push({ item, slots, at: this.text.length, length });
    for (const s of slots) this.text += s.text;
    return this.release(false);
  }

  /** The stream ended: everything held leaves, checked with nothing more to come. */
  end(): T[] {
    return this.release(true);
  }

  private release(final: boolean): T[] {
    if (this.pending.length === 0) return [];
    const offset = this.sent.length;
    const { hits, hold } = this.guard.scanner.scanFrom(this.sent + this.text, offset);
    const found = hits.map((h) => ({ ...h, start: h.start - offset, end: h.end - offset }));
    if (found.length > 0 && this.guard.mode === "block") throw this.blocked(found[0]!);
    let cut = final ? this.text.length : this.cutAt(hold - offset, found);
    if (this.text.length - cut > HOLD_CHARS) cut = this.text.length - HOLD_CHARS;
    const leaving = this.leaving(cut);
    if (leaving === 0) return [];
    const end = this.pending[leaving - 1]!;
    const upTo = end.at + end.length;
    const applied = found.filter((h) => h.start < upTo);
    record(this.guard, applied, "response");
    return this.send(leaving, upTo, applied);
  }

  /** The first pending character that may not leave yet: held text, and never half of a secret. */
  private cutAt(hold: number, found: SecretHit[]): number {
    let cut = Math.max(0, hold);
    for (let i = found.length - 1; i >= 0; i--) if (found[i]!.start < cut && found[i]!.end > cut) cut = found[i]!.start;
    return cut;
  }

  /** How many pending items end at or before `cut` (an item leaves whole or not at all). */
  private leaving(cut: number): number {
    let n = 0;
    while (n < this.pending.length && this.pending[n]!.at + this.pending[n]!.length <= cut) n++;
    return n;
  }

  private send(leaving: number, upTo: number, hits: SecretHit[]): T[] {
    const out = this.pending.splice(0, leaving);
    if (this.guard.mode === "redact" && hits.length > 0) for (const p of out) rewrite(p, hits);
    this.sent = (this.sent + this.text.slice(0, upTo)).slice(-LOOK_BEHIND);
    this.text = this.text.slice(upTo);
    for (const p of this.pending) p.at -= upTo;
    return out.map((p) => p.item);
  }

  private blocked(hit: SecretHit): GatewayError {
    record(this.guard, [hit], "response");
    return new GatewayError(
      400,
      "invalid_request_error",
      "guardrail_blocked",
      `The answer carries a secret (rule ${hit.rule}); the stream was ended before it.`,
    );
  }
}

/** Each of the item's texts with the secrets' parts in it replaced: the part where a secret starts by its marker, later parts by nothing. */
function rewrite<T>(p: Pending<T>, hits: SecretHit[]): void {
  let at = p.at;
  for (const slot of p.slots) {
    const lo = at;
    const hi = at + slot.text.length;
    at = hi;
    let out = "";
    let pos = lo;
    for (const h of hits) {
      if (h.end <= lo || h.start >= hi) continue;
      out += slot.text.slice(pos - lo, Math.max(pos, h.start) - lo);
      if (h.start >= lo) out += `[REDACTED:${h.rule}]`;
      pos = Math.min(hi, h.end);
    }
    if (pos !== lo) slot.set(out + slot.text.slice(pos - lo));
  }
}

/** The stream with its first item and the rest checked: the first item may wait for the next ones. */
export async function guardedStream<T>(guard: Guard, first: T, rest: AsyncIterator<T>): Promise<{ first: T; rest: AsyncIterator<T> }> {
  const check = new StreamCheck<T>(guard);
  const queue: T[] = check.push(first);
  let ended = false;
  const next = async (): Promise<IteratorResult<T>> => {
    while (queue.length === 0 && !ended) {
      const r = await rest.next();
      if (r.done) ((ended = true), queue.push(...check.end()));
      else queue.push(...check.push(r.value));
    }
    return queue.length > 0 ? { done: false, value: queue.shift()! } : { done: true, value: undefined };
  };
  const head = await next();
  if (head.done) throw new Error("a guarded stream ended before its first item");
  return { first: head.value, rest: { next, return: (v?: unknown) => rest.return?.(v) ?? Promise.resolve({ done: true, value: undefined }) } };
}
