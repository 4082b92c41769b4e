/**
 * `application/vnd.amazon.eventstream` framing -> events. Each frame starts with its total
 * length (4 bytes, big-endian); network chunks split and merge frames arbitrarily, so bytes
 * are buffered until a whole frame is there. The codec checks both CRCs.
 * Exceptions arrive as frames with `:message-type: exception` and throw.
 */
import type { EventStreamCodec, Message } from "@smithy/eventstream-codec";
import { upstreamFailure, type FailureKind, type UpstreamEvent } from "../../src/plugin/contract.js";

// Loaded on first use, like the signer: most gateways never stream from Bedrock.
let codec: Promise<{ codec: EventStreamCodec; toUtf8: (b: Uint8Array) => string }> | undefined;
const loadCodec = () =>
  (codec ??= Promise.all([import("@smithy/eventstream-codec"), import("@smithy/util-utf8")]).then(([es, utf8]) => ({
    codec: new es.EventStreamCodec(utf8.toUtf8, utf8.fromUtf8),
    toUtf8: utf8.toUtf8,
  })));

/** ConverseStream's modelled exceptions, as the matching HTTP errors would be classified. */
const EXCEPTIONS: Record<string, { outcome: FailureKind; retryable: boolean; status: number }> = {
  throttlingException: { outcome: "rate_limited", retryable: true, status: 429 },
  validationException: { outcome: "failure", retryable: false, status: 400 },
  modelStreamErrorException: { outcome: "failure", retryable: true, status: 424 },
  internalServerException: { outcome: "failure", retryable: true, status: 500 },
  serviceUnavailableException: { outcome: "failure", retryable: true, status: 503 },
};

function header(m: Message, name: string): string | undefined {
  const h = m.headers[name];
  return h?.type === "string" ? h.value : undefined;
}

/** Only the exception's type travels on: its message is upstream detail. */
function failure(type: string | undefined): Error {
  const known = type ? EXCEPTIONS[type] : undefined;
  const cls = known ?? { outcome: "failure" as const, retryable: true, status: undefined };
  return upstreamFailure(cls.outcome, { retryable: cls.retryable, status: cls.status, detail: `bedrock stream ${type ?? "error"}` });
}

function toEvent(m: Message, toUtf8: (b: Uint8Array) => string): UpstreamEvent {
  const kind = header(m, ":message-type");
  if (kind === "exception") throw failure(header(m, ":exception-type"));
  if (kind !== "event") throw failure(header(m, ":error-code"));
  try {
    return { event: header(m, ":event-type"), data: JSON.parse(toUtf8(m.body)) };
  } catch {
    throw upstreamFailure("failure", { retryable: true, detail: "malformed stream event" });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export async function* decodeEventStream(body: AsyncIterable<Uint8Array>): AsyncIterable<UpstreamEvent> {
  const { codec, toUtf8 } = await loadCodec();
  let buffer: Uint8Array = new Uint8Array(0);
  for await (const chunk of body) {
    buffer = concat(buffer, chunk);
    while (buffer.length >= 4) {
      const total = new DataView(buffer.buffer, buffer.byteOffset, 4).getUint32(0);
      if (buffer.length < total) break;
      yield toEvent(codec.decode(buffer.subarray(0, total)), toUtf8);
      buffer = buffer.subarray(total);
    }
  }
  if (buffer.length) throw upstreamFailure("failure", { retryable: true, detail: "event stream ended inside a frame" });
}
