/**
 * The dashboard's built files (Vite, `dist/dashboard/`), read into memory at start: the
 * bundle is small and nothing outside that folder can ever be served. Every answer carries a
 * strict Content-Security-Policy; hashed assets are cached for a year, index.html never.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const SECURITY_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticFile {
  body: Buffer;
  type: string;
  immutable: boolean;
}

/** The package root: the nearest folder above this module with a package.json (src/ in tests, dist/src/ when built). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const DASHBOARD_DIR = join(packageRoot(), "dist", "dashboard");

/** Path (relative to /dashboard/, `/` separated) to file; empty when the dashboard was not built. */
export function loadStatic(dir = DASHBOARD_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const rel = relative(dir, path).split(sep).join("/");
        // Vite names built assets with a content hash: they can be cached for good.
        files.set(rel, { body: readFileSync(path), type: TYPES[extname(name)] ?? "application/octet-stream", immutable: rel.startsWith("assets/") });
      }
    }
  };
  walk(dir);
  return files;
}
