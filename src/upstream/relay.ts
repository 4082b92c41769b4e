/**
 * An SSE upstream body relayed by push (docs/limits.md, "Streams"): each read goes through
 * the line parser (./sse-lines.ts), each event's JSON through the adapter's synchronous
 * translation, and the items wait in one queue for the renderer's `next()`. One object per
 * stream instead of an async generator per layer (body iterator → cap → SSE decode →
 * adapter), and no promise per layer per chunk. The renderer being behind pauses the body
 * (backpressure reaches the upstream); its `return()` destroys it. The answer is over at
 * `[DONE]` (or the event the adapter says ends it, Anthropic's message_stop), not at the end of
 * the body: an upstream that never ends its response after it must not hold the client's stream
 * open, nor turn a complete answer into a failed one when the body later errors. The rest of the
 * body is drained, not destroyed: an early destroy costs an AbortError per stream; one that has
 * not ended DRAIN_MS later is destroyed (it would hold its connection, and a shutdown, open).
 */
import type { Readable } from "node:stream";
import type { UpstreamEvent } from "../plugin/contract.js";
import { InvalidAnswer } from "../plugin/failure.js";
import { parseJson, type BodyCaps } from "./body.js";
import { SseLines } from "./sse-lines.js";

/** Items queued before the body is paused: a slow client holds at most this many. */
const HIGH_WATER = 32;

/** After the answer is over, how long the rest of its body may take to end. */
const DRAIN_MS = 1_000;

/** Returns true when the event ends the answer. */
type Translate<T> = (event: UpstreamEvent, emit: (item: T) => void) => boolean | void;

export class PushedStream<T> implements AsyncIterator<T> {
  private queue: T[] = [];
  private head = 0;
  private ended = false;
  private done = false;
  private failure: unknown;
  private seen = 0;
  private drain: NodeJS.Timeout | undefined;
  private wake: ((r: IteratorResult<T>) => void) | undefined;
  private fail: ((err: unknown) => void) | undefined;
  private readonly lines: SseLines;
  private readonly emit = (item: T) => void this.queue.push(item);

  constructor(
    private readonly body: Readable,
    private readonly caps: BodyCaps,
    private readonly translate: Translate<T>,
  ) {
    this.lines = new SseLines(caps.maxEventBytes, (event, data) => this.onEvent(event, data));
    body.on("data", (chunk: Buffer) => this.onData(chunk));
    body.once("end", () => this.onEnd(undefined));
    body.once("error", (err) => this.onEnd(err));
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.queue.length) return Promise.resolve({ done: false, value: this.take() });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended || this.done) return Promise.resolve({ done: true, value: undefined });
    if (this.body.isPaused()) this.body.resume();
    return new Promise((resolve, reject) => ((this.wake = resolve), (this.fail = reject)));
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.ended && !this.done) ((this.ended = true), this.body.destroy());
    this.queue = [];
    return Promise.resolve({ done: true, value: undefined });
  }

  private take(): T {
    const item = this.queue[this.head]!;
    if (++this.head === this.queue.length) ((this.queue.length = 0), (this.head = 0));
    return item;
  }

  private onData(chunk: Buffer): void {
    if (this.done || this.ended) return; // draining after [DONE]
    this.seen += chunk.byteLength;
    try {
      if (this.seen > this.caps.maxResponseBytes) throw new InvalidAnswer(`upstream answer over ${this.caps.maxResponseBytes} bytes`);
      this.lines.feed(chunk);
    } catch (err) {
      this.body.destroy();
      return this.onEnd(err);
    }
    if (this.wake && this.head < this.queue.length) this.settle({ done: false, value: this.take() });
    else if (this.wake && this.done) this.settle({ done: true, value: undefined });
    if (!this.done && this.queue.length - this.head >= HIGH_WATER) this.body.pause();
  }

  private onEvent(event: string | undefined, data: string): void {
    if (this.done) return;
    if (data === "[DONE]") return this.over();
    const json = parseJson(data);
    if (this.translate(event === undefined ? { data: json } : { event, data: json }, this.emit) === true) this.over();
  }

  private over(): void {
    this.done = true;
    this.drain = setTimeout(() => this.ended || this.body.destroy(), DRAIN_MS);
    this.drain.unref();
  }

  /**
   * The body ended, failed, or was found unusable. A pending `next()` is answered here: with an
   * item the same read queued before failing (a delta, then an error event), else the end.
   * After the answer was over, what the body does is not the answer's: no failure.
   */
  private onEnd(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.drain);
    if (err !== undefined && !this.done) this.failure = err;
    if (!this.wake) return;
    if (this.head < this.queue.length) return this.settle({ done: false, value: this.take() });
    if (this.failure === undefined) return this.settle({ done: true, value: undefined });
    const fail = this.fail!;
    this.wake = this.fail = undefined;
    fail(this.failure);
  }

  private settle(r: IteratorResult<T>): void {
    const wake = this.wake!;
    this.wake = this.fail = undefined;
    wake(r);
  }
}

/**
 * SSE bytes -> events with JSON data, as they come: the relay with no translation, for the
 * paths that relay a provider's own events (native /v1/messages, /v1beta, Responses) and for an
 * adapter without `streamEvents`. One SSE mechanism, so `[DONE]` and every cap mean the same.
 */
export function decodeSse(body: Readable, caps: BodyCaps): AsyncIterable<UpstreamEvent> {
  return { [Symbol.asyncIterator]: () => new PushedStream<UpstreamEvent>(body, caps, (event, emit) => void emit(event)) };
}
