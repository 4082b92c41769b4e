/**
 * Content blocks of a Messages request as chat content (translate.ts): text, images (base64 as
 * a data URL, url as is), text documents as text. A block with no chat equivalent (a PDF, a
 * file id, a server tool's block) is a problem naming its path.
 */
import type { ContentPart } from "../../core/chat-request.js";
import type { GatewayError } from "../../core/errors.js";
import { unsupported } from "../../plugin/contract.js";
import type { ContentBlock } from "./schema.js";

export type Problems = GatewayError[];

/** The system prompt as one text (its blocks joined). */
export function systemText(system: string | Array<{ text: string }>): string {
  return typeof system === "string" ? system : system.map((b) => b.text).join("\n\n");
}

/** One block of a user (or system) turn; `[]` for a hint-only block. */
export function userParts(b: ContentBlock, where: string, problems: Problems): ContentPart[] {
  if (b.type === "text" && "text" in b && typeof b.text === "string") return b.text ? [{ type: "text", text: b.text }] : [];
  if (b.type === "image" && "source" in b) return imagePart(b.source as Record<string, unknown>, where, problems);
  if (b.type === "document" && "source" in b) return documentParts(b.source as Record<string, unknown>, where, problems);
  if (b.type === "thinking" || b.type === "redacted_thinking") return [];
  problems.push(unsupported(where, `a '${b.type}' block has no equivalent for this model.`));
  return [];
}

function imagePart(source: Record<string, unknown>, where: string, problems: Problems): ContentPart[] {
  if (source.type === "base64") return [{ type: "image_url", image_url: { url: `data:${String(source.media_type)};base64,${String(source.data)}` } }];
  if (source.type === "url" && typeof source.url === "string" && source.url.startsWith("https://"))
    return [{ type: "image_url", image_url: { url: source.url } }];
  problems.push(unsupported(`${where}.source`, "only base64 images and https image URLs can be sent to this model."));
  return [];
}

/** A plain-text document is text; a PDF or a file id cannot reach a chat model. */
function documentParts(source: Record<string, unknown>, where: string, problems: Problems): ContentPart[] {
  if (source.type === "text" && typeof source.data === "string") return [{ type: "text", text: source.data }];
  if (source.type === "content") {
    const blocks = typeof source.content === "string" ? [{ type: "text", text: source.content }] : (source.content as ContentBlock[]);
    return blocks.flatMap((b, i) => userParts(b, `${where}.source.content.${i}`, problems));
  }
  problems.push(unsupported(`${where}.source`, `a '${String(source.type)}' document cannot be sent to this model (only text documents).`));
  return [];
}

/** A tool result's content as the text of a `tool` message. */
export function resultText(content: string | ContentBlock[], where: string, problems: Problems): string {
  if (typeof content === "string") return content;
  return content
    .flatMap((b, i) => {
      const parts = userParts(b, `${where}.${i}`, problems);
      if (parts.some((p) => p.type !== "text")) problems.push(unsupported(`${where}.${i}`, "an image inside a tool result cannot be sent to this model."));
      return parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
    })
    .join("\n");
}
