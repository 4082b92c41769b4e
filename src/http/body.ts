/**
 * The request body as one Buffer, read straight off the Node stream within
 * `server.maxBodyBytes` (413 past it, declared or chunked), then parsed as JSON (400 when
 * empty or malformed).
 */
import type { IncomingMessage } from "node:http";
import { invalidRequest, requestTooLarge } from "../core/errors.js";
import { clientClosed } from "../upstream/failover-policy.js";

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers["content-length"]) > limit) return Promise.reject(requestTooLarge(limit));
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void parts.push(chunk);
      // The rest is read and dropped, so the 413 reaches a client still uploading.
      stop();
      req.resume();
      reject(requestTooLarge(limit));
    };
    const onEnd = () => {
      stop();
      resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    };
    const onGone = () => {
      stop();
      reject(clientClosed());
    };
    const stop = () => {
      req.off("data", onData).off("end", onEnd).off("error", onGone).off("close", onGone);
    };
    req.on("data", onData).on("end", onEnd).on("error", onGone).on("close", onGone);
  });
}

/**
 * JSON.parse spends ~0.4 µs per value: 8 MiB of tiny objects costs over 100 ms of CPU before
 * validation could refuse it. Bodies large enough to hold that many are scanned first (a
 * byte loop, ~1 ms per MiB) and refused past these counts (docs/limits.md). Smaller bodies,
 * every ordinary request, skip the scan.
 */
export const MAX_JSON_OBJECTS = 50_000;
export const MAX_JSON_VALUES = 250_000;
const SCAN_FROM_BYTES = 100_000;

/** Objects and array/object members outside strings; stops as soon as a cap is passed. */
function tooManyValues(body: Buffer): boolean {
  let objects = 0;
  let separators = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b && ++objects > MAX_JSON_OBJECTS) return true;
    else if (c === 0x2c && ++separators > MAX_JSON_VALUES) return true;
  }
  return false;
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length > SCAN_FROM_BYTES && tooManyValues(body)) {
    throw invalidRequest(
      `body: Too many JSON values (at most ${MAX_JSON_OBJECTS} objects and ${MAX_JSON_VALUES} array or object members)`,
      "request_too_large",
    );
  }
  const text = body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(text.trim() ? "body: Malformed JSON" : "body: Required");
  }
}
