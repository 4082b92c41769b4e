/**
 * Where a loaded config came from, so a problem found after validation (an endpoint naming no
 * provider instance, an option key a plugin does not read: src/plugin/load.ts) is reported like
 * every other config problem, `file:line: path: what` (README "Limits and failure behaviour").
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { UsageError } from "../core/errors.js";
import { formatProblems, yamlLines, type LineOf, type Problem } from "./diagnostics.js";

export const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` swapped for inert tokens, so YAML parses it in every style (config/config.ts yamlLoader). */
export const mask = (content: string, saved: string[] = []) => content.replace(PLACEHOLDER, (m) => `__GATEWAY_ENV_${saved.push(m) - 1}__`);

/** Line numbers for a config file, read again only when it has problems; none if it cannot be parsed. */
export async function linesOf(file: string): Promise<LineOf | undefined> {
  try {
    return await yamlLines(readFileSync(file, "utf8"), basename(file) === "package.json" ? ["gateway"] : [], (t) => mask(t));
  } catch {
    return undefined;
  }
}

/** The file each loaded config came from (none for a config given in code or zero-config). */
const sources = new WeakMap<object, string>();

export function rememberSource(config: object, file: string): void {
  sources.set(config, file);
}

/** Problems found in a validated config, one line each with the file and line when known. */
export async function configError(config: object, problems: Problem[]): Promise<UsageError> {
  const file = sources.get(config);
  return new UsageError(formatProblems(problems, file, file ? await linesOf(file) : undefined).join("\n"));
}
