/**
 * The process entry (bin/gateway.js, or `node dist/src/cli/main.js`). It loads nothing but cli/heap.ts
 * before the CLI itself (cli/program.ts): the young-generation hold must be set before the
 * module graph is parsed, which happens before any module of a static graph runs.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import "./heap.js";

/** Runs argv and sets the exit code. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const program = await import("./program.js");
  await program.main(argv);
}

const isMain = (() => {
  try {
    return realpathSync(process.argv[1] ?? "") === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isMain) await main();
