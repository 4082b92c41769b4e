/**
 * Tool name patterns of grants and of a server's `tools` (docs/mcp.md, "Grants"): `*` matches
 * any run of characters, `?` one; everything else itself. Compiled once per pattern, anchored,
 * and linear (no nested quantifiers can be written).
 */
const compiled = new Map<string, RegExp>();

export function globMatches(glob: string, name: string): boolean {
  if (glob === "*") return true;
  let re = compiled.get(glob);
  if (!re) {
    const body = glob
      .replace(/[.+^${}()|[\]\\/-]/g, "\\$&")
      .replace(/\*+/g, ".*")
      .replace(/\?/g, ".");
    re = new RegExp(`^${body}$`, "s");
    if (compiled.size > 10_000) compiled.clear(); // patterns come from config and the store: few, but bounded
    compiled.set(glob, re);
  }
  return re.test(name);
}

/** Whether any of `globs` matches; absent `globs` (no limit set) matches everything. */
export const anyGlob = (globs: readonly string[] | null | undefined, name: string): boolean => !globs || globs.some((g) => globMatches(g, name));
