/**
 * Tool-use ids as Anthropic accepts them. The API checks `tool_use.id` / `tool_result.tool_use_id`
 * against ^[a-zA-Z0-9_-]+$ ("String should match pattern"), so ids other providers issued
 * (`call_abc|fc_1` from OpenAI's Responses API, `Bash:12`, dotted ids) are rejected
 * (openai-surface.md A6, G). Such ids are sent as `gwid_` + base64url of their UTF-8 bytes:
 * base64url's alphabet is exactly Anthropic's, the mapping needs no state, a call and its
 * result stay paired, and it reverses exactly. Ids that already fit pass unchanged (all of
 * Anthropic's own `toolu_...` ids do), except ones that happen to start with the prefix,
 * which are encoded too so that decoding is never ambiguous. Answers only carry ids Anthropic
 * issued; decoding them anyway guarantees the client never sees an encoded form.
 */
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const PREFIX = "gwid_";

export function toAnthropicId(id: string): string {
  if (ANTHROPIC_ID.test(id) && !id.startsWith(PREFIX)) return id;
  return PREFIX + Buffer.from(id, "utf8").toString("base64url");
}

export function fromAnthropicId(id: string): string {
  if (!id.startsWith(PREFIX)) return id;
  const decoded = Buffer.from(id.slice(PREFIX.length), "base64url").toString("utf8");
  // Only a canonical encoding is ours; anything else is left as the provider sent it.
  return toAnthropicId(decoded) === id ? decoded : id;
}
