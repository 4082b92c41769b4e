/**
 * Finding and reading gateway.config.yaml (cosmiconfig): YAML with `${VAR}` in any style, a
 * file:line on every problem, a relative database path taken from the file's folder. The
 * schema and validation are config/config.ts.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { cosmiconfig } from "cosmiconfig";
import { isUrl } from "../core/database-url.js";
import { UsageError } from "../core/errors.js";
import { checkConfig, parseConfig, type Config } from "./config.js";
import { formatProblems, yamlSyntaxError, type Problem } from "./diagnostics.js";
import { linesOf, mask, rememberSource } from "./source.js";

export interface LoadedConfig {
  config: Config;
  /** The file it came from; undefined for zero-config start. */
  file?: string;
  /**
   * `${VAR}` references whose variable is unset, one line each (file:line: path: ...). They
   * stop `gateway serve`; admin commands (keys, credits) need no provider keys and go on.
   */
  unset?: string[];
}

/**
 * `{ apiKey: ${OPENAI_API_KEY} }` (docs/cli.md's own style) is not valid YAML: `{` and `}`
 * cannot stand in a plain scalar inside a flow map. Placeholders are swapped for inert tokens
 * before parsing and put back after, so `${VAR}` works in every YAML style.
 */
async function yamlLoader(_file: string, content: string): Promise<unknown> {
  const { parse } = await import("yaml"); // only when there is a YAML file: zero-config skips it
  const saved: string[] = [];
  const masked = mask(content, saved);
  let parsed: unknown;
  try {
    parsed = parse(masked);
  } catch (err) {
    // yaml's own code frame would show the masked text: say it with the file's own line.
    throw new UsageError(yamlSyntaxError(_file, content, masked, err, saved));
  }
  return restore(parsed ?? {}, saved);
}

function restore(value: unknown, saved: string[]): unknown {
  if (typeof value === "string") return value.replace(/__GATEWAY_ENV_(\d+)__/g, (_m, i: string) => saved[Number(i)] ?? "");
  if (Array.isArray(value)) return value.map((v) => restore(v, saved));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restore(v, saved)]));
  return value;
}

export async function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<LoadedConfig> {
  const explorer = cosmiconfig("gateway", {
    searchPlaces: [
      "gateway.config.yaml",
      "gateway.config.yml",
      "gateway.config.json",
      ".gatewayrc",
      ".gatewayrc.yaml",
      ".gatewayrc.yml",
      ".gatewayrc.json",
      "package.json",
    ],
    loaders: { ".yaml": yamlLoader, ".yml": yamlLoader, noExt: yamlLoader },
    searchStrategy: "project",
    cache: false,
  });
  let found;
  try {
    found = file ? await explorer.load(resolve(cwd, file)) : await explorer.search(cwd);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(jsonSyntaxError(err as Error) ?? `cannot read config${file ? ` ${file}` : ""}: ${(err as Error).message}`);
  }
  if (!found) return { config: parseConfig({}, env), unset: [] };
  const { config, unset, invalid } = checkConfig(found.config, env);
  const lines = async (problems: Problem[]) => formatProblems(problems, found.filepath, await linesOf(found.filepath));
  if (!config) throw new UsageError((await lines([...unset, ...invalid])).join("\n"));
  // A relative database path is relative to the config file, not to wherever the CLI runs.
  if (found.config?.database && !isUrl(config.database)) config.database = resolve(dirname(found.filepath), config.database);
  const caFile = config.server.upstream.caFile;
  if (caFile) {
    const path = (config.server.upstream.caFile = resolve(dirname(found.filepath), caFile));
    const problem = caFileProblem(path);
    if (problem) throw new UsageError((await lines([{ path: ["server", "upstream", "caFile"], message: `${path}: ${problem}` }])).join("\n"));
  }
  rememberSource(config, found.filepath);
  if (!isUrl(config.database) && isDirectory(config.database)) {
    throw new UsageError(
      (await lines([{ path: ["database"], message: `${config.database} is a directory; expected a file path (e.g. ./gateway.db)` }])).join("\n"),
    );
  }
  return { config, file: found.filepath, unset: unset.length ? await lines(unset) : [] };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // absent: serve creates it
  }
}

/**
 * cosmiconfig's JSON error is a multi-line code frame; the operator gets one line, `file:line`,
 * as for YAML (config/diagnostics.ts). Null when the error is not a JSON syntax error.
 */
function jsonSyntaxError(err: Error): string | null {
  const file = (err as { filepath?: string }).filepath;
  const at = /JSON at position (\d+)/.exec(err.message);
  if (!file || !at) return null;
  const line = readFileSync(file, "utf8").slice(0, Number(at[1])).split("\n").length;
  const reason = /\n\n([^\n]*JSON at position[^\n]*)/.exec(err.message)?.[1] ?? "not valid JSON";
  return `${file}:${line}: invalid JSON: ${reason.replace(/ while parsing .*$/, "")}`;
}

/** Node's TLS takes a file of no certificate silently (and every connection then fails): said at start instead. */
function caFileProblem(path: string): string | null {
  if (!isFile(path)) return "no such file";
  try {
    new X509Certificate(readFileSync(path));
    return null;
  } catch (err) {
    return `not a PEM certificate (${(err as Error).message})`;
  }
}
