/**
 * Log lines written as bytes, field by field, into the buffer the log writer sends
 * (observability/log-writer.ts): numbers as digits, strings JSON-escaped to ASCII (`\uXXXX` past 0x7e).
 * The request line (observability/request-line.ts) is written on every request; made this way it creates
 * no string at all, where building it as a string and encoding it measured about 2.5 µs per
 * line plus the garbage collection of its pieces (docs/observability.md, "What it costs per
 * request"). Callers make room first (`room`), then write without bounds checks.
 */
/** ASCII text as bytes, made once (field names between values). */
export const encoded = (ascii: string): Uint8Array => new Uint8Array(Buffer.from(ascii, "latin1"));

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
/** "00".."99" as byte pairs. */
const PAIRS = encoded(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0")).join(""));
const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

export class LineBytes {
  len = 0;
  constructor(public buf: Buffer) {}

  /** Continues in `buf`, empty. */
  restart(buf: Buffer): void {
    this.buf = buf;
    this.len = 0;
  }

  /** Makes room for `n` more bytes, growing the buffer if it must. */
  room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** Bytes made beforehand (line-bytes' `encoded`): one copy, the cheapest way in for more than a few bytes. */
  bytes(a: Uint8Array): void {
    this.buf.set(a, this.len);
    this.len += a.length;
  }

  /** Characters that need no escaping: the gateway's own words and ids, field names. */
  ascii(s: string): void {
    const b = this.buf;
    let o = this.len;
    for (let i = 0; i < s.length; i++) b[o++] = s.charCodeAt(i);
    this.len = o;
  }

  /** Any text as UTF-8 (records pino made). Room: 3 bytes per character. */
  text(s: string): void {
    this.len += this.buf.write(s, this.len, "utf8");
  }

  /** A JSON string (or null), ASCII only. Room: 6 bytes per character, plus 2. */
  json(s: string | null): void {
    if (s === null) return this.ascii("null");
    const b = this.buf;
    let o = this.len;
    b[o++] = QUOTE;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c < 0x7f) {
        if (c === QUOTE || c === BACKSLASH) b[o++] = BACKSLASH;
        b[o++] = c;
      } else {
        // Control characters, and everything past ASCII (a surrogate pair as its two halves: JSON.parse joins them).
        b[o++] = BACKSLASH;
        b[o++] = 117; // u
        b[o++] = HEX[c >> 12]!;
        b[o++] = HEX[(c >> 8) & 15]!;
        b[o++] = HEX[(c >> 4) & 15]!;
        b[o++] = HEX[c & 15]!;
      }
    }
    b[o++] = QUOTE;
    this.len = o;
  }

  /** An integer (below 2^53 in size) in decimal; anything else as null. Room: 24. */
  int(n: number): void {
    if (!Number.isSafeInteger(n)) return this.ascii("null");
    if (n < 0) {
      this.buf[this.len++] = MINUS;
      n = -n;
    }
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    const b = this.buf;
    let o = (this.len += digits);
    // Two digits per division (the time field has 13).
    while (n >= 100) {
      const q = Math.floor(n / 100);
      const r = (n - q * 100) * 2;
      b[--o] = PAIRS[r + 1]!;
      b[--o] = PAIRS[r]!;
      n = q;
    }
    // The one or two leading digits.
    if (n >= 10) {
      b[o - 1] = PAIRS[n * 2 + 1]!;
      b[o - 2] = PAIRS[n * 2]!;
    } else b[o - 1] = ZERO + n;
  }

  /** Milliseconds to three decimals, as JavaScript prints Math.round(x * 1000) / 1000. Room: 28. */
  millis(x: number): void {
    let us = Math.round(x * 1000);
    if (!Number.isSafeInteger(us)) return this.ascii("null");
    if (us < 0) {
      this.buf[this.len++] = MINUS;
      us = -us;
    }
    const whole = Math.floor(us / 1000);
    this.int(whole);
    this.fraction(us - whole * 1000, 100);
  }

  /** Nano-USD (an integer below 2^53) as the exact decimal USD core/money.ts prints. Room: 28. */
  usd(nano: number): void {
    if (!Number.isSafeInteger(nano) || nano < 0) return this.int(nano);
    const whole = Math.floor(nano / 1e9);
    this.int(whole);
    this.fraction(nano - whole * 1e9, 1e8);
  }

  /** `.ddd` of an integer below 10 * `unit`, trailing zeros left out; nothing for 0. */
  private fraction(f: number, unit: number): void {
    if (f === 0) return;
    const b = this.buf;
    b[this.len++] = DOT;
    for (let p = unit; f > 0; p /= 10) {
      const d = Math.floor(f / p);
      b[this.len++] = ZERO + d;
      f -= d * p;
    }
  }
}
