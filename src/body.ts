/**
 * The request body as one Buffer, read straight off the Node stream within
 * `server.maxBodyBytes` (413 past it, declared or chunked), then parsed as JSON (400 when
 * empty or malformed).
 */
import type { IncomingMessage } from "node:http";
import { invalidRequest, requestTooLarge } from "./errors.js";
import { clientClosed } from "./failover-policy.js";

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

export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(text.trim() ? "body: Malformed JSON" : "body: Required");
  }
}
