/**
 * Where log lines go: a file descriptor (stdout, or a file) written asynchronously through
 * libuv's thread pool, so the request path never waits on a disk or a pipe. A line is
 * appended to a string; once 32 KiB wait (or the once-a-second timer, or at once on a
 * terminal) they are encoded once and written with one `fs.write`; lines that come meanwhile
 * wait for the next. A reader that stops reading makes the writer drop lines past 16 MiB
 * waiting, never grow memory or block. Used instead of sonic-boom (pino's destination),
 * whose string mode measures its whole 16 KiB pending buffer again on every write: about
 * 4 µs per request line in the gateway's profile (docs/observability.md).
 */
import { closeSync, write, writeSync } from "node:fs";

export interface WriterOptions {
  /** Write once this many characters wait (0: at once, for a terminal). */
  minLength: number;
  /** Drop new lines past this many characters waiting. */
  maxPending: number;
}

const RETRY_MS = 10;
/** How long a synchronous flush at shutdown keeps retrying a full pipe. */
const SYNC_GIVE_UP_MS = 2000;

export class LogWriter {
  private pending = "";
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
  ) {}

  /** pino's destination interface, and the request lines' way in. */
  write(text: string): boolean {
    if (this.closed) return false;
    if (this.pending.length + text.length > this.opts.maxPending) {
      this.dropped++;
      return false;
    }
    this.pending += text;
    if (!this.writing && this.pending.length >= this.opts.minLength) this.pump();
    return true;
  }

  /** Starts writing whatever waits (the periodic flush). */
  flush(): void {
    if (!this.writing && this.pending) this.pump();
  }

  private pump(): void {
    this.writing = true;
    const buf = Buffer.from(this.pending);
    this.pending = "";
    this.send(buf);
  }

  private send(buf: Buffer): void {
    write(this.fd, buf, 0, buf.length, null, (err, n) => {
      if (err) {
        // A full non-blocking pipe: try again shortly. Anything else: the lines are lost, logging goes on.
        if (err.code === "EAGAIN") return void setTimeout(() => this.send(buf), RETRY_MS).unref();
        n = buf.length;
      }
      if (n < buf.length) return this.send(buf.subarray(n));
      this.writing = false;
      if (this.pending.length >= this.opts.minLength && this.pending) this.pump();
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
    writeAllSync(this.fd, Buffer.from(this.pending));
    this.pending = "";
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
