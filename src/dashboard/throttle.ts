/**
 * Sign-in throttling (docs/dashboard.md): at most 10 failures per user and 30 per client IP in
 * 15 minutes; past either, sign-in answers 429 before any password is checked. Counters live
 * in this process's memory, like the request rate limits (src/access/limits.ts): a restart forgets
 * them, and each process counts its own.
 */
import { GatewayError } from "../core/errors.js";

const WINDOW_MS = 15 * 60_000;
const MAX_PER_USER = 10;
const MAX_PER_IP = 30;
/** Bounds memory under a flood of distinct emails or addresses; the oldest entries go first. */
const MAX_TRACKED = 50_000;

export class SignInThrottle {
  private failures = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** Throws 429 when this user or IP is over its budget of failures. */
  check(email: string, ip: string): void {
    const user = this.recent(`user:${email}`);
    const byIp = this.recent(`ip:${ip}`);
    const over = user.length >= MAX_PER_USER ? user : byIp.length >= MAX_PER_IP ? byIp : undefined;
    if (!over) return;
    const retryAfter = Math.max(1, Math.ceil((over[0]! + WINDOW_MS - this.now()) / 1000));
    throw new GatewayError(429, "rate_limit_error", "rate_limited", `Too many failed sign-ins. Retry after ${retryAfter} s.`, {
      headers: { "retry-after": String(retryAfter) },
    });
  }

  fail(email: string, ip: string): void {
    for (const id of [`user:${email}`, `ip:${ip}`]) {
      const list = this.recent(id);
      list.push(this.now());
      this.failures.delete(id); // re-insert: Map order is then least recently failed first
      this.failures.set(id, list);
    }
    while (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
  }

  /** A correct password clears the user's count (not the IP's: one good account must not unlock guessing at others). */
  succeed(email: string): void {
    this.failures.delete(`user:${email}`);
  }

  private recent(id: string): number[] {
    const cutoff = this.now() - WINDOW_MS;
    const list = (this.failures.get(id) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(id, list);
    else this.failures.delete(id);
    return list;
  }
}
