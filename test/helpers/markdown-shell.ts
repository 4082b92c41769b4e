/**
 * The shell a Markdown page shows, read the way a person pasting it would run it: its fenced
 * shell blocks (```sh, bash, shell or console; fences may be indented inside a list item), their
 * commands (continued lines joined, here-document bodies left out: they are data, not commands)
 * and the words of each `node …bin/gateway.js` invocation, quoted words kept whole.
 */
import { readFileSync } from "node:fs";

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
}

const FENCE = /^([ \t]*)```(sh|bash|shell|console)\n([\s\S]*?)^\1```/gm;

export function shellBlocks(file: string): ShellBlock[] {
  const md = readFileSync(file, "utf8");
  return [...md.matchAll(FENCE)].map((m) => ({ line: md.slice(0, m.index).split("\n").length, text: m[3]! }));
}

/** The page's shell block that contains `marker` (a test that runs one block finds it so). */
export function blockWith(file: string, marker: string): string {
  const found = shellBlocks(file).find((b) => b.text.includes(marker));
  if (!found) throw new Error(`${file} has no shell block with ${marker}`);
  return found.text;
}

/** The page without its fenced blocks (of any language), for reading inline code. */
export function withoutFences(md: string): string {
  return md.replace(/^([ \t]*)```[\s\S]*?^\1```/gm, "");
}

/** Inline code spans of a page's prose (they may wrap across lines). */
export function inlineCode(md: string): string[] {
  return [...withoutFences(md).matchAll(/`([^`\n]+(?:\n[^`\n]+)*)`/g)].map((m) => m[1]!.replace(/\s+/g, " "));
}

/** The block's commands: `\`-continued lines joined, here-document bodies (`<<'X'` … `X`) left out. */
export function commandLines(block: string): string[] {
  const out: string[] = [];
  let heredoc: string | undefined;
  let pending = "";
  for (const line of block.split("\n")) {
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      continue;
    }
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1);
      continue;
    }
    const command = pending + line;
    pending = "";
    heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(command)?.[1];
    if (command.trim()) out.push(command);
  }
  return out;
}

/** A command line with its single-quoted strings emptied: what the shell expands and runs. */
export function unquotedSingle(line: string): string {
  return line.replace(/'[^']*'/g, "''");
}

/**
 * The words of one shell command starting at `from`: up to an unquoted `|`, `&`, `;`, `<`, `>`,
 * a `)` closing an enclosing `$(`, or a `#` comment. Quotes stay in the words; `$(…)` inside a
 * word stays whole.
 */
export function wordsFrom(line: string, from: number): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  let depth = 0;
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      word += c;
    } else if (c === "'" || c === '"') ((quote = c), (word += c));
    else if (c === "$" && line[i + 1] === "(") ((depth += 1), (word += "$("), i++);
    else if (c === ")" && depth > 0) ((depth -= 1), (word += c));
    else if (/[|&;<>)]/.test(c) || (c === "#" && !word)) break;
    else if (/\s/.test(c)) (word && words.push(word), (word = ""));
    else word += c;
  }
  if (word) words.push(word);
  return words;
}

const INVOCATION = /\bnode\s+(?:\S*\/)?bin\/gateway\.js(?=\s|$)/g;

/** Every `node [path/]bin/gateway.js …` on a command line: the words after the script. */
export function gatewayInvocations(line: string): string[][] {
  return [...line.matchAll(INVOCATION)].map((m) => wordsFrom(line, m.index + m[0].length));
}

/** A bare `gateway` command: at the start of a command, or after `$(`, `&&`, `||`, `|`, `;` or a backquote. */
export const BARE_GATEWAY = /(?:^|\$\(|&&|\|\||[|;`])\s*gateway(?=\s|$)/;
