/**
 * How the log writer's buffers reach their file descriptor (observability/log-writer.ts), one write at a
 * time, never blocking the event loop:
 * - stdout as a pipe or a socket (a log collector, systemd's journal, `docker logs`): through
 *   `process.stdout`, libuv's stream, which writes at once on the non-blocking descriptor
 *   and waits for it to drain in the event loop. Written from libuv's thread pool instead,
 *   each 32 KiB write woke a pool thread that took the gateway's core from the request path:
 *   about 1.7 µs per request line measured under load (docs/observability.md).
 * - a file, or a terminal: `fs.write` through the thread pool, where a slow disk waits.
 */
import { write } from "node:fs";
import { Socket } from "node:net";

/** Writes `buf` whole (or gives it up: a reader gone), then calls `done`. */
export type Sink = (buf: Buffer, done: () => void) => void;

const RETRY_MS = 10;

export function sinkFor(fd: number): Sink {
  if (fd === 1 && process.stdout instanceof Socket && !process.stdout.isTTY) return streamSink(process.stdout);
  return fdSink(fd);
}

function streamSink(stream: Socket): Sink {
  // A reader that goes away (EPIPE) loses the lines; it must not end the gateway.
  stream.on("error", () => {});
  return (buf, done) => void stream.write(buf, () => done());
}

function fdSink(fd: number): Sink {
  const send = (buf: Buffer, done: () => void): void =>
    write(fd, buf, 0, buf.length, null, (err, n) => {
      if (err) {
        // A full non-blocking pipe: try again shortly. Anything else: the lines are lost, logging goes on.
        if (err.code === "EAGAIN") return void setTimeout(() => send(buf, done), RETRY_MS).unref();
        n = buf.length;
      }
      if (n < buf.length) return send(buf.subarray(n), done);
      done();
    });
  return send;
}
