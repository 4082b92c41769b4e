/** Whether a module is the script node was started with (the bench modules double as entry points). */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function isMain(moduleUrl: string): boolean {
  try {
    return realpathSync(process.argv[1] ?? "") === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
