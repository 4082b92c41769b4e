/**
 * V8's young generation while the gateway starts (docs/architecture.md, Memory). Loading the
 * modules makes V8 double the young generation up to 16 MB per semi-space, and those pages
 * then stay resident while the server idles. Growth is held (factor 1) from the first import
 * of the CLI until the server is ready, then V8's default factor (2) is restored, so a server
 * under load sizes its young generation exactly as before. An operator's own semi-space flags
 * (NODE_OPTIONS or node's command line) are left alone.
 */
import { setFlagsFromString } from "node:v8";

const V8_DEFAULT_GROWTH = 2;
const operatorSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes("semi-space"));

if (!operatorSet) setFlagsFromString("--semi-space-growth-factor=1");

/** Start-up is over: the young generation may grow with the load again. */
export function startupDone(): void {
  if (!operatorSet) setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}
