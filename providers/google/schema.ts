/**
 * A client's JSON Schema, prepared for Gemini's JSON-Schema fields (`parametersJsonSchema`,
 * `responseJsonSchema`). We send those rather than `parameters` / `responseSchema`: the latter
 * are a typed OpenAPI-3.0 subset (google.ai.generativelanguage Schema) that rejects with 400
 * every keyword it has no field for (`additionalProperties`, `$schema`, `const`, `title`, type
 * arrays...; openai-surface.md A2), which is exactly what @openai/agents' strict schemas and
 * zod-to-json-schema output contain. The JSON-Schema fields are a protobuf Value: "While the
 * full JSON Schema may be sent, not all features are supported" and the supported list includes
 * `$defs`, `$ref`, `anyOf`, `oneOf`, `additionalProperties`, `required`, `title`...
 * (GenerationConfig.responseJsonSchema, https://ai.google.dev/api/generate-content#generationconfig;
 * FunctionDeclaration.parametersJsonSchema, https://ai.google.dev/api/caching#FunctionDeclaration).
 *
 * So the schema passes as it is, with two documented gaps closed, as vercel/ai does
 * (packages/google/src/sanitize-response-json-schema.ts, google-prepare-tools.ts):
 * - `const` is not in Google's list (it would be ignored, loosening the schema): it becomes
 *   a one-value `enum`, which is;
 * - the root `$schema` is a meta-annotation outside the list that constrains nothing; it is
 *   left out (reported rejected where clients sent it to Gemini: QwenLM/qwen-code#1186).
 * Nothing else is removed: `additionalProperties: false` and `anyOf [T, {type: "null"}]` are
 * in Google's supported list.
 */

type Schema = Record<string, unknown>;

/** Keys whose value is one subschema. */
const ONE = ["items", "additionalProperties", "not", "contains", "if", "then", "else"];
/** Keys whose value is a list of subschemas. */
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keys whose value maps names to subschemas. */
const MAP = ["properties", "$defs", "definitions", "patternProperties"];

/** The root schema for Gemini: no `$schema`, `const` as a one-value `enum` at every depth. */
export function forGemini(schema: Schema): Schema {
  const { $schema: _meta, ...rest } = schema;
  return walk(rest);
}

function walk(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "const") continue;
    if (ONE.includes(key)) out[key] = sub(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (MAP.includes(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
    else out[key] = value;
  }
  if ("const" in schema && out.enum === undefined) out.enum = [schema.const];
  return out;
}

/** A subschema may also be a boolean (`additionalProperties: false`) or, for old `items`, a list. */
function sub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sub);
  return isSchema(value) ? walk(value) : value;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
