/**
 * Where log lines go: a file descriptor (stdout, or a file) written asynchronously
 * (observability/log-sink.ts), so the request path never waits on a disk or a pipe. Lines are
 * appended as bytes to a buffer (observability/line-bytes.ts: the request line is written straight into
 * it, pino's records are encoded into it); once 32 KiB wait (or the once-a-second timer, or
 * at once on a terminal) that buffer is written in one write and lines that come
 * meanwhile go to a second buffer. A reader that stops reading makes the writer drop lines
 * past 16 MiB waiting, never grow memory or block. Used instead of sonic-boom (pino's
 * destination), whose string mode measures its whole 16 KiB pending buffer again on every
 * write: about 4 µs per request line in the gateway's profile (docs/observability.md).
 */
import { closeSync, writeSync } from "node:fs";
import { LineBytes } from "./line-bytes.js";
import { sinkFor, type Sink } from "./log-sink.js";

export interface WriterOptions {
  /** Write once this many bytes wait (0: at once, for a terminal). */
  minLength: number;
  /** Drop new lines past this many bytes waiting. */
  maxPending: number;
}

const RETRY_MS = 10;
/** How long a synchronous flush at shutdown keeps retrying a full pipe. */
const SYNC_GIVE_UP_MS = 2000;

export class LogWriter {
  /** The lines waiting; while a write is in flight, the ones that came after it. */
  private readonly out: LineBytes;
  private readonly sink: Sink;
  /** Buffers of this size are reused once written (a grown one is left to the GC). */
  private readonly size: number;
  private spare: Buffer | null = null;
  private writing = false;
  private idle: Array<() => void> = [];
  private closed = false;
  /** Lines dropped because the reader was not keeping up. */
  dropped = 0;

  constructor(
    private readonly fd: number,
    private readonly opts: WriterOptions,
    /** Close the descriptor at the end (a file the gateway opened; not stdout). */
    private readonly owned: boolean,
  ) {
    this.size = Math.max(64 * 1024, 2 * opts.minLength);
    this.sink = sinkFor(fd);
    this.out = new LineBytes(Buffer.allocUnsafe(this.size));
  }

  /** pino's destination interface: whole records as text. */
  write(text: string): boolean {
    const out = this.room(text.length * 3);
    if (!out) return false;
    out.text(text);
    this.wrote();
    return true;
  }

  /**
   * Where to write a line of at most `bytes` bytes, then call `wrote()`; null: the line is
   * dropped (the writer is closed, or the reader is `maxPending` behind).
   */
  room(bytes: number): LineBytes | null {
    if (this.closed) return null;
    if (this.out.len + bytes > this.opts.maxPending) {
      this.dropped++;
      return null;
    }
    this.out.room(bytes);
    return this.out;
  }

  /** A line was written into `room()`'s buffer. */
  wrote(): void {
    if (!this.writing && this.out.len >= this.opts.minLength) this.pump();
  }

  /** Starts writing whatever waits (the periodic flush). */
  flush(): void {
    if (!this.writing && this.out.len > 0) this.pump();
  }

  private pump(): void {
    this.writing = true;
    const full = this.out.buf;
    const len = this.out.len;
    this.out.restart(this.spare ?? Buffer.allocUnsafe(this.size));
    this.spare = null;
    this.send(full, full.subarray(0, len));
  }

  private send(full: Buffer, buf: Buffer): void {
    this.sink(buf, () => {
      if (full.length === this.size) this.spare = full;
      this.writing = false;
      if (this.out.len >= this.opts.minLength && this.out.len > 0) this.pump();
      else for (const done of this.idle.splice(0)) done();
    });
  }

  /** Waits for the write in flight, then writes the rest synchronously and closes a file. */
  async end(): Promise<void> {
    if (this.closed) return;
    // A reader that never reads again must not hold up shutdown: wait a while, then leave the rest.
    if (this.writing) await new Promise<void>((r) => (this.idle.push(r), setTimeout(r, SYNC_GIVE_UP_MS).unref()));
    this.closed = true;
    if (this.writing) return;
    writeAllSync(this.fd, this.out.buf.subarray(0, this.out.len));
    this.out.len = 0;
    if (this.owned) closeSync(this.fd);
  }
}

function writeAllSync(fd: number, buf: Buffer): void {
  const giveUp = Date.now() + SYNC_GIVE_UP_MS;
  let rest = buf;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || Date.now() > giveUp) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
    }
  }
}
