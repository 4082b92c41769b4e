/**
 * SSE framing on bytes (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * lines end at LF, CRLF or CR; `data:` lines join with "\n"; `event:` names the event; a
 * comment (`:`) and `id:`/`retry:` are skipped; a blank line dispatches. Only a field's value
 * is decoded, straight from the chunk: the one copy of a chunk's bytes the gateway makes (a
 * line split across reads is joined first). A newline byte never occurs inside a UTF-8
 * sequence, so splitting on bytes is safe. The bytes since the last complete event are
 * counted: an event over `maxEventBytes` is an invalid answer (docs/limits.md).
 */
import { InvalidAnswer } from "../plugin/failure.js";

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

const DATA = Buffer.from("data");
const EVENT = Buffer.from("event");

/** The field name between `start` and `end` is `name` (compared as bytes: no string per line). */
function named(buf: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[start + i] !== name[i]) return false;
  return true;
}

export type SseEvent = (event: string | undefined, data: string) => void;

export class SseLines {
  /** An unfinished line from the last read. */
  private rest: Buffer | undefined;
  /** The last read ended with CR: an LF starting the next one belongs to it. */
  private afterCr = false;
  private data: string | undefined;
  private event: string | undefined;
  /** Bytes of the event being read (its complete lines). */
  private held = 0;

  constructor(
    private readonly maxEventBytes: number,
    private readonly onEvent: SseEvent,
  ) {}

  feed(chunk: Buffer): void {
    let buf = chunk;
    let at = 0;
    // After a CR at the end of the last read there is no unfinished line to join.
    if (this.afterCr && buf.length > 0) ((this.afterCr = false), buf[0] === LF && (at = 1));
    else if (this.rest) ((buf = Buffer.concat([this.rest, buf])), (this.rest = undefined));
    let cr = buf.indexOf(CR, at);
    for (;;) {
      let end = buf.indexOf(LF, at);
      if (cr !== -1 && cr < at) cr = buf.indexOf(CR, at);
      if (cr !== -1 && (end === -1 || cr < end)) end = cr;
      if (end === -1) break;
      let next = end + 1;
      if (end === cr) {
        if (next === buf.length) this.afterCr = true;
        else if (buf[next] === LF) next++;
      }
      this.held += next - at;
      this.line(buf, at, end);
      at = next;
    }
    if (at < buf.length) this.rest = buf.subarray(at);
    if (this.held + (this.rest?.length ?? 0) > this.maxEventBytes) throw new InvalidAnswer(`upstream stream event over ${this.maxEventBytes} bytes`);
  }

  private line(buf: Buffer, start: number, end: number): void {
    if (start === end) return this.dispatch();
    if (buf[start] === COLON) return; // a comment (a keep-alive)
    let colon = buf.indexOf(COLON, start);
    if (colon === -1 || colon > end) colon = end;
    let value = colon + 1;
    if (value < end && buf[value] === SPACE) value++;
    if (named(buf, start, colon, DATA)) {
      const text = buf.toString("utf8", value, end);
      this.data = this.data === undefined ? text : `${this.data}\n${text}`;
    } else if (named(buf, start, colon, EVENT)) this.event = buf.toString("utf8", value, end);
  }

  private dispatch(): void {
    const { data, event } = this;
    if (this.held > this.maxEventBytes) throw new InvalidAnswer(`upstream stream event over ${this.maxEventBytes} bytes`);
    this.held = 0;
    this.data = this.event = undefined;
    if (data !== undefined) this.onEvent(event, data);
  }
}
