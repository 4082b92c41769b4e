/**
 * The commands and options of the built CLI, read from its own `--help` (commander's format:
 * "Options:" and "Commands:" sections, each entry indented two spaces), and a check of one
 * invocation's words against them. `--help` exits 0 for any word (commander shows the parent's
 * help for an unknown one), so existence is read from the parent's list, never from the exit code.
 */
import { execa } from "execa";
import { BIN } from "./cli.js";

export interface CliCommand {
  name: string;
  options: Set<string>;
  subcommands: Map<string, CliCommand>;
  /** Runs without a subcommand (it has options of its own beyond --help, or no subcommands). */
  ownAction: boolean;
}

/** At most this many `--help` processes at once (about 50 in all; the machines have 2 cores). */
const PARALLEL = 4;
let running = 0;
const waiting: (() => void)[] = [];

async function help(path: string[]): Promise<string> {
  if (running >= PARALLEL) await new Promise<void>((go) => waiting.push(go));
  running++;
  try {
    return await helpText(path);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function helpText(path: string[]): Promise<string> {
  const r = await execa("node", [BIN, ...path, "--help"], { reject: false, timeout: 60_000, stdin: "ignore" });
  if (r.exitCode !== 0 || !r.stdout.startsWith(`Usage: gateway ${path.map((p) => `${p} `).join("")}`)) {
    throw new Error(`\`gateway ${path.join(" ")} --help\` did not describe it (exit ${r.exitCode}):\n${r.stdout}${r.stderr}`);
  }
  return r.stdout;
}

function section(text: string, title: string): string[] {
  const at = text.split("\n").indexOf(`${title}:`);
  if (at < 0) return [];
  const rest = text.split("\n").slice(at + 1);
  const end = rest.findIndex((l) => !l.startsWith(" "));
  return rest.slice(0, end < 0 ? undefined : end);
}

function parse(name: string, text: string): { options: Set<string>; children: string[] } {
  const options = new Set<string>();
  for (const line of section(text, "Options")) {
    const flags = /^  (-\S.*?)(?: {2,}|$)/.exec(line)?.[1];
    for (const f of flags?.match(/-{1,2}[\w-]+/g) ?? []) options.add(f);
  }
  const children = section(text, "Commands")
    .map((l) => /^  ([a-z][\w-]*)/.exec(l)?.[1])
    .filter((c): c is string => !!c && c !== "help");
  return { options, children };
}

async function load(path: string[]): Promise<CliCommand> {
  const { options, children } = parse(path.at(-1) ?? "gateway", await help(path));
  const subs = await Promise.all(children.map((c) => load([...path, c])));
  const ownOptions = [...options].filter((o) => o !== "-h" && o !== "--help");
  return {
    name: path.join(" "),
    options,
    subcommands: new Map(subs.map((s) => [s.name.split(" ").at(-1)!, s])),
    ownAction: !children.length || ownOptions.length > 0,
  };
}

/** The whole tree: `gateway --help`, each command's, each subcommand's. */
export function cliTree(): Promise<CliCommand> {
  return load([]);
}

/** The global options that take a value (`--config F`, `--db URL`). */
const VALUED = new Set(["-c", "--config", "--db"]);

/** Flags in a word of a command or of a synopsis (`[--budget USD\|--no-budget]`, `--days=3`). */
const flagsIn = (word: string) => word.split("|").flatMap((w) => /^[[(]*(--?[a-zA-Z][\w-]*)/.exec(w)?.[1] ?? []);

/**
 * The command and subcommand an invocation names (`"keys create"`, `"audit"`), or a problem:
 * an unknown command or subcommand, a subcommand missing, an option the command does not take.
 */
export function checkInvocation(tree: CliCommand, words: string[]): { command: string } | { problem: string } {
  let i = 0;
  while (i < words.length && words[i]!.startsWith("-")) i += VALUED.has(words[i]!) ? 2 : 1;
  const name = words[i];
  const command = name === undefined ? undefined : tree.subcommands.get(name);
  if (!command) return { problem: `no command ${JSON.stringify(name)}` };
  let target = command;
  const next = words[i + 1];
  const sub = next === undefined ? undefined : command.subcommands.get(next);
  if (sub) target = sub;
  else if (!command.ownAction)
    return { problem: `\`${command.name}\` needs one of ${[...command.subcommands.keys()].join(", ")}, got ${JSON.stringify(next)}` };
  for (const flag of words.slice(i + 1).flatMap(flagsIn)) {
    if (!target.options.has(flag) && !tree.options.has(flag)) return { problem: `\`${target.name}\` has no option ${flag}` };
  }
  return { command: target.name };
}
