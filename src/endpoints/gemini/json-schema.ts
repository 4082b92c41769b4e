/**
 * Google's Schema (an OpenAPI 3.0 subset: `type: "OBJECT"`, `nullable`, `propertyOrdering`;
 * https://ai.google.dev/api/caching#Schema) -> JSON Schema, for `parameters` and
 * `responseSchema` translated to another provider. Applied to the JSON-Schema fields too
 * (`parametersJsonSchema`, `responseJsonSchema`): Gemini CLI sends upper-case types there,
 * which Google accepts and other providers refuse.
 */
type Schema = Record<string, unknown>;

/** Keys whose value is one subschema, a list of them, or a map of names to them. */
const ONE = new Set(["items", "additionalProperties", "not"]);
const LIST = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const MAP = new Set(["properties", "$defs", "definitions"]);
/** Google-only annotations with no JSON Schema meaning. */
const DROP = new Set(["propertyOrdering", "nullable"]);

export function jsonSchemaOf(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROP.has(key)) continue;
    if (key === "type") out.type = typeOf(value);
    else if (ONE.has(key)) out[key] = sub(value);
    else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (MAP.has(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

function typeOf(value: unknown): unknown {
  if (typeof value === "string") return value.toLowerCase();
  return Array.isArray(value) ? value.map((t) => (typeof t === "string" ? t.toLowerCase() : t)) : value;
}

function sub(value: unknown): unknown {
  return isSchema(value) ? jsonSchemaOf(value) : value;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
