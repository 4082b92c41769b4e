/**
 * Reading an upstream's 2xx body with every buffer capped (docs/limits.md): a whole answer
 * (JSON or stream) at `maxResponseBytes`, one SSE event at `maxEventBytes`. An upstream that
 * sends more, a body that is not JSON, or an event that never ends is an invalid answer: that
 * endpoint's failure (health counts it), 502 when no endpoint answered validly.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { UpstreamEvent } from "../plugin/contract.js";
import { InvalidAnswer } from "../plugin/failure.js";

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
 * SSE bytes -> events with JSON data (eventsource-parser does the framing). The parser holds
 * an unfinished event in memory, so the bytes fed since the last complete event are counted
 * and capped. After `[DONE]` the rest of the body is drained, not abandoned: leaving a
 * `for await` early destroys the body, which costs an AbortError (with a stack) per stream.
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>, caps: BodyCaps): AsyncIterable<UpstreamEvent> {
  const queue: EventSourceMessage[] = [];
  let done = false;
  let pending = 0; // bytes since the last complete event
  const parser = createParser({ onEvent: (e) => void ((pending = 0), done || queue.push(e)) });
  const decoder = new TextDecoder();
  for await (const chunk of capped(body, caps.maxResponseBytes)) {
    if (done) continue;
    pending += chunk.byteLength;
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending > caps.maxEventBytes) throw new InvalidAnswer(`upstream stream event over ${caps.maxEventBytes} bytes`);
    for (let e = queue.shift(); e; e = queue.shift()) {
      if (e.data === "[DONE]") {
        done = true;
        queue.length = 0;
        break;
      }
      yield { event: e.event, data: parseJson(e.data) };
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidAnswer("malformed stream event");
  }
}
