/**
 * The README's commands as a new user pastes them (docs/cli.md, "Starting the CLI and
 * building"): every shell block runs the CLI as `node bin/gateway.js …` (a bare `gateway` exists
 * only after `npm link`), every command and option it names is one the built CLI has, its
 * variables are set by an earlier block, the CLI table lists every command `--help` lists, the
 * dashboard sizes it states are those of the build, and the files its steps write are git-ignored.
 * The docs/ pages' shell blocks are held to the same CLI convention. Blocks that need a server
 * are run by test/quickstart.test.ts, test/quickstart-sdk.test.ts, test/readme-blocks.test.ts and
 * test/clients/readme-agents.test.ts.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { beforeAll, expect, test } from "vitest";
import { assertBuilt } from "./helpers/cli.js";
import { checkInvocation, cliTree, type CliCommand } from "./helpers/cli-help.js";
import { BARE_GATEWAY, commandLines, gatewayInvocations, inlineCode, shellBlocks, unquotedSingle, withoutFences } from "./helpers/markdown-shell.js";

const README = readFileSync("README.md", "utf8");
const PAGES = [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Every command line of every shell block of the pages, named `file:line` (the block's fence). */
const lines = (pages: string[]) =>
  pages.flatMap((file) => shellBlocks(file).flatMap((b) => commandLines(b.text).map((text) => ({ at: `${file}:${b.line}`, text }))));

let tree: CliCommand;
beforeAll(async () => {
  assertBuilt();
  tree = await cliTree();
}, 120_000);

test("no shell block of the README or docs/ runs a bare `gateway` (it exists only after `npm link`)", () => {
  const bare = lines(PAGES).filter((l) => BARE_GATEWAY.test(unquotedSingle(l.text)));
  expect(bare.map((l) => `${l.at}: ${l.text}`)).toEqual([]);
  // Inline code in the README's prose that a reader would paste: a command with options.
  const inline = inlineCode(README).filter((c) => /^gateway [a-z]/.test(c) && / -/.test(c));
  expect(inline).toEqual([]);
});

test("every CLI command the README and docs/ show exists, with the options it is given", () => {
  const shown = [
    ...lines(PAGES).flatMap((l) => gatewayInvocations(l.text).map((words) => ({ at: l.at, words }))),
    ...inlineCode(README)
      .filter((c) => /^node bin\/gateway\.js [a-z-]/.test(c)) // not the convention's own `node bin/gateway.js <command>`
      .map((c) => ({ at: "README.md (inline)", words: c.split(" ").slice(2) })),
  ];
  expect(shown.length).toBeGreaterThan(30);
  const problems = shown.flatMap(({ at, words }) => {
    const r = checkInvocation(tree, words);
    return "problem" in r ? [`${at}: gateway ${words.join(" ")}: ${r.problem}`] : [];
  });
  expect(problems).toEqual([]);
});

test("the README's shell blocks paste as they stand: no placeholder, and every variable set by an earlier line", () => {
  const readme = lines(["README.md"]);
  const shellOnly = (line: string) =>
    unquotedSingle(line)
      .replace(/"[^"]*"/g, '""')
      .replace(/(^|\s)#.*$/, "");
  const placeholders = readme.filter((l) => /(^|\s)(<[a-z][\w-]*>|\[--)/.test(shellOnly(l.text)));
  expect(placeholders.map((l) => `${l.at}: ${l.text}`)).toEqual([]);
  const set = new Set(["HOME", "PATH"]);
  const unset: string[] = [];
  for (const { at, text } of readme) {
    const shell = unquotedSingle(text);
    for (const m of shell.matchAll(/(?:^|[\s;&|(])([A-Za-z_]\w*)=/g)) set.add(m[1]!);
    for (const m of shell.matchAll(/\bfor\s+([A-Za-z_]\w*)\s+in\b/g)) set.add(m[1]!);
    for (const m of shell.matchAll(/\$\{?([A-Za-z_]\w*)/g)) if (!set.has(m[1]!)) unset.push(`${at}: $${m[1]} in ${text}`);
  }
  expect(unset).toEqual([]);
});

/** The README's "## CLI" table: the code spans of each row's first cell, `\|` read as `|`. */
function cliTableSpans(): string[] {
  const section = README.slice(README.indexOf("\n## CLI\n"), README.indexOf("\n## ", README.indexOf("\n## CLI\n") + 1));
  return section
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((row) => [...row.split(/(?<!\\)\|/)[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll("\\|", "|")));
}

test("the README's CLI table lists every command and subcommand `--help` lists, each with real options", () => {
  const listed = new Set<string>();
  const problems: string[] = [];
  for (const span of cliTableSpans()) {
    const r = checkInvocation(tree, span.split(/\s+/));
    if ("problem" in r) problems.push(`${span}: ${r.problem}`);
    else listed.add(r.command);
  }
  expect(problems).toEqual([]);
  const all = [...tree.subcommands.values()].flatMap((c) => [...(c.ownAction ? [c.name] : []), ...[...c.subcommands.values()].map((s) => s.name)]);
  expect(all.length).toBeGreaterThan(30);
  expect(all.filter((c) => !listed.has(c))).toEqual([]);
});

test("the dashboard sizes the README states are those of dist/dashboard (within 5 %: the figures are rounded)", () => {
  const m = /weigh \*\*(\d+) KB\*\* as built \(one (\d+) KB script, one (\d+) KB stylesheet, the HTML\), \*\*(\d+) KB\s+gzipped\*\*/.exec(README);
  expect(m, "the README's sentence on the dashboard's size").not.toBeNull();
  const [total, script, style, gzipped] = m!.slice(1).map((n) => Number(n) * 1000);
  const assets = readdirSync("dist/dashboard/assets");
  const files = ["index.html", ...assets.map((f) => `assets/${f}`)].map((f) => readFileSync(`dist/dashboard/${f}`));
  const size = (ext: string) => readFileSync(`dist/dashboard/assets/${assets.find((n) => n.endsWith(ext))}`).length;
  const near = (stated: number, measured: number) => expect(Math.abs(stated - measured) / measured, `${stated} vs ${measured} bytes`).toBeLessThanOrEqual(0.05);
  near(
    total!,
    files.reduce((n, f) => n + f.length, 0),
  );
  near(
    gzipped!,
    files.reduce((n, f) => n + gzipSync(f, { level: 9 }).length, 0),
  );
  near(script!, size(".js"));
  near(style!, size(".css"));
});

test("what the README's steps write into the clone is git-ignored; the example config is not", () => {
  // init's config (it may hold a pasted key), serve's database, its journals, lock and secret, the fleet's secret.
  const written = ["gateway.config.yaml", "gateway.db", "gateway.db-wal", "gateway.db-shm", "gateway.db.lock", "gateway.db.secret", "fleet.secret"];
  const ignored = (file: string) => {
    try {
      execFileSync("git", ["check-ignore", "--no-index", "-q", file]);
      return true;
    } catch {
      return false;
    }
  };
  expect(written.filter((f) => !ignored(f))).toEqual([]);
  expect(ignored("gateway.config.example.yaml")).toBe(false);
  expect(withoutFences(README)).toContain("`.gitignore`");
});
