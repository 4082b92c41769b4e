/**
 * Reading an upstream's 2xx body with every buffer capped (docs/limits.md): a whole answer
 * (JSON or stream) at `maxResponseBytes`, one SSE event at `maxEventBytes`. An upstream that
 * sends more, a body that is not JSON, or an event that never ends is an invalid answer: that
 * endpoint's failure (health counts it), 502 when no endpoint answered validly.
 */
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

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidAnswer("malformed stream event");
  }
}
