/**
 * Explicit `null` for an optional field means "not sent" under `compat: openai` (docs/http.md
 * "Validation"). Each endpoint knows which object levels of its body that applies to; these
 * are the two steps they share.
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deletes the keys of `o` whose value is null (one level; nested objects are the caller's). */
export function dropNullFields(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) if (o[k] === null) delete o[k];
}
