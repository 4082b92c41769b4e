/**
 * Reading a message's content in the superset's forms (a string, null, or an array of
 * `text` / `image_url` parts) for adapters whose APIs want text or their own blocks.
 */
import type { ChatMessage, ChatRequest, ContentPart } from "./chat-request.js";

type Content = ChatMessage["content"];

/** The text of a message: parts' texts joined as OpenAI's models read them (no separator). */
export function textOf(content: Content): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  let out = "";
  for (const p of content) if (p.type === "text") out += p.text;
  return out;
}

/** The content as parts: a string is one text part; empty text parts are left out (APIs reject them). */
export function partsOf(content: Content): ContentPart[] {
  if (content == null || content === "") return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.filter((p) => p.type !== "text" || p.text !== "");
}

/** `system` and `developer` both instruct the model; providers without `developer` get `system`. */
export const isInstruction = (m: Pick<ChatMessage, "role">): boolean => m.role === "system" || m.role === "developer";

export interface InlineImage {
  mimeType: string;
  /** Base64, as it stood in the URL. */
  data: string;
}

/** `data:image/png;base64,...` -> its MIME type and data; undefined for any other URL. */
export function inlineImage(url: string): InlineImage | undefined {
  const match = /^data:(image\/[a-z0-9.+-]+);base64,(.*)$/is.exec(url);
  return match ? { mimeType: match[1]!.toLowerCase(), data: match[2]! } : undefined;
}

/** The output limit the client asked for, under either name (`max_completion_tokens` is the newer one). */
export function requestedMaxTokens(req: Pick<ChatRequest, "max_tokens" | "max_completion_tokens">): number | undefined {
  return req.max_tokens ?? req.max_completion_tokens;
}
