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
 * validation could refuse it, and 8 MiB of `[[[[…]]]]` over a second. Every body is scanned
 * first (a byte loop, ~1.5 ns per byte) and refused past these counts or this nesting depth
 * (docs/limits.md). The depth bound is why small bodies are scanned too: an 80 KB body nested
 * 40,000 deep parses fine, then overflows the stack wherever it is serialised again
 * (JSON.stringify recurses), a 500. The scan costs about what JSON.parse itself costs on an
 * ordinary 2 KB request (~3 µs), which no cheaper check could bound.
 */
const MAX_JSON_OBJECTS = 50_000;
const MAX_JSON_VALUES = 250_000;
/** No request field nests this deep (a JSON schema in `tools` reaches ~10); a stack overflow needs thousands. */
const MAX_JSON_DEPTH = 64;

/** Which bound the body passes, if any: containers, members or depth outside strings; stops at the first. */
function overBound(body: Buffer): "containers" | "members" | "depth" | null {
  let containers = 0;
  let separators = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return "depth";
      if (++containers > MAX_JSON_OBJECTS) return "containers";
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++separators > MAX_JSON_VALUES) return "members";
  }
  return null;
}

export function parseJsonBody(body: Buffer): unknown {
  const over = overBound(body);
  if (over === "depth") throw invalidRequest(`body: JSON nested too deeply (at most ${MAX_JSON_DEPTH} levels of arrays and objects)`, "request_too_large");
  if (over) {
    throw invalidRequest(
      `body: Too many JSON values (at most ${MAX_JSON_OBJECTS} objects and arrays and ${MAX_JSON_VALUES} array or object members)`,
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
