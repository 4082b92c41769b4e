/**
 * How the operator started this CLI, to name in a "Next:" hint: `gateway` when run through a
 * link on the PATH (`npm link`), else `node <path to bin/gateway.js>` as the README runs it
 * (docs/cli.md, "Starting the CLI and building").
 */
import { basename, relative } from "node:path";

export function selfCommand(argv1: string | undefined = process.argv[1], cwd = process.cwd()): string {
  if (!argv1 || basename(argv1) === "gateway") return "gateway";
  const path = relative(cwd, argv1);
  return `node ${path.startsWith("..") || path.startsWith("/") ? argv1 : path}`;
}
