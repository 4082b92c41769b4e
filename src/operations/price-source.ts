/**
 * Where `gateway models sync --prices <file|url>` reads its price list: a local file or an
 * http(s) URL, either at most MAX_PRICE_LIST_BYTES (LiteLLM's list is about 1.6 MB, models.dev's
 * api.json a few MB), a URL within its timeout.
 * Every failure is one Error naming the source (a URL without its query, which may hold a token).
 */
import { readFile, stat } from "node:fs/promises";

const MAX_PRICE_LIST_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

/** A URL as it may be shown: no user, password, query or fragment. */
export function shownSource(source: string): string {
  if (!isUrl(source)) return source;
  const u = new URL(source);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

export async function readPriceSource(source: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<unknown> {
  const text = isUrl(source) ? await fetchText(source, timeoutMs) : await fileText(source);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${shownSource(source)} is not JSON (${(err as Error).message})`, { cause: err });
  }
}

const tooLarge = (source: string) => new Error(`${shownSource(source)} is larger than ${MAX_PRICE_LIST_BYTES / 1024 / 1024} MiB`);

async function fileText(path: string): Promise<string> {
  const size = await stat(path).then(
    (s) => s.size,
    (err: NodeJS.ErrnoException) => {
      throw new Error(`cannot read ${path}: ${err.code ?? err.message}`);
    },
  );
  if (size > MAX_PRICE_LIST_BYTES) throw tooLarge(path);
  return readFile(path, "utf8");
}

async function fetchText(url: string, timeoutMs: number): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { signal, headers: { accept: "application/json" } });
    if (!res.ok || !res.body) throw new Error(`${shownSource(url)} answered HTTP ${res.status}`);
    if (Number(res.headers.get("content-length")) > MAX_PRICE_LIST_BYTES) throw tooLarge(url);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > MAX_PRICE_LIST_BYTES) throw tooLarge(url);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  } catch (err) {
    if (signal.aborted) throw new Error(`${shownSource(url)} did not answer within ${timeoutMs / 1000} s`, { cause: err });
    if (err instanceof Error && err.message.startsWith(shownSource(url))) throw err;
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    throw new Error(`cannot fetch ${shownSource(url)}: ${cause ?? (err as Error).message}`, { cause: err });
  }
}
