/**
 * Config `aliases`: a name a client sends to the catalog id it means. A key is an exact name
 * or a glob (`*` any run of characters, `?` one), so `claude-*: openai/gpt-5` sends every
 * Claude name a coding agent asks for to another model. An exact name wins over any glob;
 * among globs, the first listed that matches (docs/http.md, "Model names").
 */
type Aliases = Readonly<Record<string, string>>;

interface Compiled {
  exact: Map<string, string>;
  globs: { pattern: RegExp; target: string }[];
}

/** Compiled once per config object: the hot path only looks up. */
const compiled = new WeakMap<Aliases, Compiled>();

export function resolveAlias(aliases: Aliases, requested: string): string {
  const c = compiledOf(aliases);
  const exact = c.exact.get(requested);
  if (exact !== undefined) return exact;
  for (const g of c.globs) if (g.pattern.test(requested)) return g.target;
  return requested;
}

function isGlob(name: string): boolean {
  return name.includes("*") || name.includes("?");
}

function compiledOf(aliases: Aliases): Compiled {
  let c = compiled.get(aliases);
  if (c) return c;
  c = { exact: new Map(), globs: [] };
  for (const [name, target] of Object.entries(aliases)) {
    if (isGlob(name)) c.globs.push({ pattern: globPattern(name), target });
    else c.exact.set(name, target);
  }
  compiled.set(aliases, c);
  return c;
}

function globPattern(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}
