/** Reads a JSON request body within `server.maxBodyBytes` (413 past it, 400 when malformed). */
import { invalidRequest, requestTooLarge } from "./errors.js";

export async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const declared = Number(req.headers.get("content-length"));
  if (declared > limit) throw requestTooLarge(limit);
  const text = Number.isFinite(declared) && req.headers.has("content-length") ? await req.text() : await readCapped(req, limit);
  if (Buffer.byteLength(text) > limit) throw requestTooLarge(limit);
  if (!text.trim()) throw invalidRequest("body: Required");
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("body: Malformed JSON");
  }
}

/** A body without Content-Length (chunked) is read piece by piece and cut off at the limit. */
async function readCapped(req: Request, limit: number): Promise<string> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    size += r.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw requestTooLarge(limit);
    }
    parts.push(r.value);
  }
  return Buffer.concat(parts).toString("utf8");
}
