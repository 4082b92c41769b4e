/**
 * A request's tags for usage attribution (docs/usage.md, "Tags"): the `X-Gateway-Tags` header
 * (`team=search,env=prod`) and the body's `metadata` (chat completions and Responses), merged
 * with the header winning per name. Each source follows OpenAI's published `metadata` rules
 * (at most 16 pairs, names up to 64 characters, values up to 512), so a request valid for
 * OpenAI is valid here; anything else is a 400 before any hold or upstream call.
 */
import { invalidTags } from "./errors.js";

export type Tags = Record<string, string>;

const MAX_TAGS = 16;
const MAX_TAG_NAME = 64;
const MAX_TAG_VALUE = 512;

/** Header names are plain identifiers, so `name=value` pairs and the CSV column never need quoting rules. */
const HEADER_NAME = /^[A-Za-z0-9_.:-]+$/;

/** The header's pairs; undefined when absent or blank. */
function headerTags(header: string | undefined): Tags | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const tags = new Map<string, string>(); // a Map, so a name like __proto__ stays a plain name
  const pairs = header.split(",");
  if (pairs.length > MAX_TAGS) throw invalidTags(`X-Gateway-Tags has ${pairs.length} pairs; at most ${MAX_TAGS} are allowed.`, "X-Gateway-Tags");
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    const value = eq < 0 ? "" : pair.slice(eq + 1).trim();
    if (eq < 0 || !HEADER_NAME.test(name) || value === "")
      throw invalidTags(
        `X-Gateway-Tags must be name=value pairs separated by commas (team=search,env=prod); got "${pair.trim().slice(0, 80)}".`,
        "X-Gateway-Tags",
      );
    if (tags.has(name)) throw invalidTags(`X-Gateway-Tags names "${name}" twice.`, "X-Gateway-Tags");
    checkLengths(name, value, "X-Gateway-Tags");
    tags.set(name, value);
  }
  return Object.fromEntries(tags);
}

/** The body's `metadata` (already a string map by the endpoint's schema), checked against OpenAI's limits. */
function metadataTags(metadata: Record<string, string> | undefined): Tags | undefined {
  if (!metadata) return undefined;
  const names = Object.keys(metadata);
  if (names.length === 0) return undefined;
  if (names.length > MAX_TAGS) throw invalidTags(`metadata has ${names.length} pairs; at most ${MAX_TAGS} are allowed.`, "metadata");
  for (const name of names) checkLengths(name, metadata[name]!, "metadata");
  return { ...metadata };
}

function checkLengths(name: string, value: string, param: "X-Gateway-Tags" | "metadata"): void {
  if (name.length === 0 || name.length > MAX_TAG_NAME) throw invalidTags(`${param}: a name must be 1 to ${MAX_TAG_NAME} characters.`, param);
  if (value.length > MAX_TAG_VALUE) throw invalidTags(`${param}: the value of "${name}" is longer than ${MAX_TAG_VALUE} characters.`, param);
}

/** Both sources merged, the header winning per name; null when the request has no tags. */
export function requestTags(header: string | undefined, metadata: Record<string, string> | undefined): Tags | null {
  const fromHeader = headerTags(header);
  const fromBody = metadataTags(metadata);
  if (!fromHeader && !fromBody) return null;
  return { ...fromBody, ...fromHeader };
}
