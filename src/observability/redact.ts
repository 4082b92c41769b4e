/**
 * What is never written to a log (docs/observability.md), in one place. The request line is built
 * from a fixed list of fields that hold no secret (observability/request-line.ts), so nothing there needs
 * hiding; this list is the second wall, for everything else a log record may carry (an
 * error's fields, a config fragment): any of these names, at any of the first three levels,
 * is replaced, and free text (an error message) has credentials cut out by `scrub`.
 */

/** Field names whose values are secrets wherever they appear. */
const SECRET_FIELDS = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "api-key",
  "apiKey",
  "api_key",
  "key",
  "secret",
  "clientSecret",
  "client_secret",
  "password",
  "token",
  "secretAccessKey",
  "sessionToken",
  "accessKeyId",
];

/** pino `redact` paths: each name at the top and at the two levels below it. */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => {
  const name = /^[A-Za-z_$][\w$]*$/.test(f) ? f : `["${f}"]`;
  const nested = name.startsWith("[") ? name : `.${name}`;
  return [name, `*${nested}`, `*.*${nested}`];
});

export const CENSOR = "[redacted]";

/** Credentials in free text: URL userinfo, bearer tokens, `sk-`/`gsk_`-style keys, AWS key ids. */
const PATTERNS: Array<[RegExp, string]> = [
  [/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${CENSOR}@`],
  [/\b(bearer)\s+[^\s,;"']+/gi, `$1 ${CENSOR}`],
  [/\b(sk|gsk|xai|pk|rk)[-_][A-Za-z0-9_-]{8,}/g, CENSOR],
  [/\bAKIA[0-9A-Z]{16}\b/g, CENSOR],
];

export function scrub(text: string): string {
  let out = text;
  for (const [re, to] of PATTERNS) out = out.replace(re, to);
  return out;
}
