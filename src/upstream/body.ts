/**
 * Reading an upstream's 2xx body with every buffer capped (docs/limits.md): a whole answer
 * (JSON or stream) at `maxResponseBytes`, one SSE event at `maxEventBytes`. An upstream that
 * sends more, a body that is not JSON, or an event that never ends is an invalid answer: that
 * endpoint's failure (health counts it), 502 when no endpoint answered validly.
 */
import type { UpstreamEvent } from "../plugin/contract.js";
import { InvalidAnswer } from "../plugin/failure.js";
import { SseLines } from "./sse-lines.js";

export interface BodyCaps {
  maxEventBytes: number;
  maxResponseBytes: number;
}

/** The body as it comes, failing once it has sent more than `max` bytes. */
export async function* capped(body: AsyncIterable<Uint8Array>, max: number): AsyncIterable<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.byteLength;
    if (seen > max) throw new InvalidAnswer(`upstream answer over ${max} bytes`);
    yield chunk;
  }
}

export async function readJson(body: AsyncIterable<Uint8Array>, max: number): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of capped(body, max)) chunks.push(chunk);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new InvalidAnswer("upstream answer is not JSON");
  }
}

/**
 * SSE bytes -> events with JSON data (./sse-lines.ts does the framing and caps an event at
 * `maxEventBytes`). After `[DONE]` the rest of the body is drained, not abandoned: leaving a
 * `for await` early destroys the body, which costs an AbortError (with a stack) per stream.
 * The OpenAI-format path does the same by push (./relay.ts).
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>, caps: BodyCaps): AsyncIterable<UpstreamEvent> {
  const queue: UpstreamEvent[] = [];
  let done = false;
  const lines = new SseLines(caps.maxEventBytes, (event, data) => {
    if (done) return;
    if (data === "[DONE]") return void (done = true);
    queue.push({ event, data: parseJson(data) });
  });
  for await (const chunk of capped(body, caps.maxResponseBytes)) {
    if (done) continue;
    lines.feed(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    for (const e of queue.splice(0)) yield e;
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidAnswer("malformed stream event");
  }
}
