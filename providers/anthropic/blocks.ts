/**
 * Message content (a string or OpenAI `text` / `image_url` parts) as Anthropic content blocks
 * (https://docs.anthropic.com/en/api/messages; vision:
 * https://docs.anthropic.com/en/docs/build-with-claude/vision). An https image goes by URL
 * (`source: {type: "url", url}`, fetched by Anthropic), a data URL inline
 * (`source: {type: "base64", media_type, data}`, where the API takes only JPEG, PNG, GIF and
 * WebP). OpenAI's `detail` has no Anthropic equivalent and is not sent.
 */
import { type CacheControl, type ChatMessage, type ContentPart, inlineImage, unsupported } from "../../src/plugin/contract.js";

export interface TextBlock {
  type: "text";
  text: string;
  /** A client's caching mark on the part or its message (docs/openai-compat.md "cache_control"). */
  cache_control?: CacheControl;
}
type ImageSource = { type: "url"; url: string } | { type: "base64"; media_type: string; data: string };
interface ImageBlock {
  type: "image";
  source: ImageSource;
  cache_control?: CacheControl;
}
export type ContentBlock = TextBlock | ImageBlock;

const MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * The blocks of one message's content; `field` is the message's path (`messages.3`). Empty text
 * is left out (the API rejects empty text blocks). Images only where `images` allows them.
 */
export function contentBlocks(content: ChatMessage["content"], field: string, images: boolean): ContentBlock[] {
  if (content == null || content === "") return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  const out: ContentBlock[] = [];
  content.forEach((part, j) => {
    const mark = part.cache_control && { cache_control: part.cache_control };
    if (part.type === "text") {
      if (part.text !== "") out.push({ type: "text", text: part.text, ...mark });
      return;
    }
    if (!images) throw unsupported(`${field}.content.${j}`, "Anthropic takes images only in user and tool messages.");
    out.push({ type: "image", source: imageSource(part, `${field}.content.${j}.image_url.url`), ...mark });
  });
  return out;
}

function imageSource(part: Extract<ContentPart, { type: "image_url" }>, field: string): ImageSource {
  const url = part.image_url.url;
  if (!url.startsWith("data:")) return { type: "url", url };
  const inline = inlineImage(url);
  if (!inline || !MEDIA_TYPES.has(inline.mimeType)) {
    throw unsupported(field, "Anthropic takes inline images as base64 image/jpeg, image/png, image/gif or image/webp.");
  }
  return { type: "base64", media_type: inline.mimeType, data: inline.data };
}
