/** Option parsers shared by commands; bad values are usage errors (exit 2). */
import { InvalidArgumentError } from "commander";
import { UsageError } from "../../core/errors.js";
import { usdToNanoExact } from "../../core/money.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90s` or an ISO date/timestamp; must lie in the future. */
export function parseExpiry(value: string, now: number): number {
  const d = /^(\d+)([smhdw])$/.exec(value.trim());
  let at: number;
  if (d) {
    const amount = Number(d[1]);
    if (amount <= 0) throw new UsageError(`--expires: the duration must be positive`);
    at = now + amount * UNITS[d[2]!]!;
  } else {
    at = Date.parse(value);
    if (Number.isNaN(at)) throw new UsageError(`--expires: expected an ISO date or a duration like 30d, got '${value}'`);
  }
  if (at <= now) throw new UsageError(`--expires: ${value} is in the past`);
  return at;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

/** A positive USD amount, exact to 1e-9 and at any size a balance can hold (BigInt nano-USD). */
export function positiveUsd(value: string): bigint {
  let nano: bigint;
  try {
    nano = usdToNanoExact(value);
  } catch (err) {
    throw new UsageError(`amount: ${(err as Error).message}`);
  }
  if (nano <= 0n) throw new UsageError("amount: must be greater than zero");
  return nano;
}

/** `--since`: an ISO date or a duration back from now (`24h`, `7d`). */
export function parseSince(value: string, now: number): number {
  const d = /^(\d+)([smhdw])$/.exec(value.trim());
  if (d) return now - Number(d[1]) * UNITS[d[2]!]!;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new UsageError(`--since: expected an ISO date or a duration like 7d, got '${value}'`);
  return at;
}

export function positiveIntOrZero(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError("expected a port number 0-65535");
  return n;
}
