/**
 * Chat messages -> Converse `system` and `messages`.
 * References: Message and ContentBlock
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html),
 * ImageBlock (format png | jpeg | gif | webp; in the JSON API `source.bytes` is base64:
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html).
 */
import { type ChatMessage, inlineImage, invalidRequest, isInstruction, partsOf, textOf, unsupported } from "../../src/plugin/contract.js";
import { converseToolUseId } from "./tool-ids.js";

type ContentBlock =
  | { text: string }
  | { image: { format: string; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string }> } };

export interface Turn {
  role: "user" | "assistant";
  content: ContentBlock[];
}

/** Converse names formats, not MIME types; anything else has no ImageBlock. */
const FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

function imageBlock(url: string, path: string): ContentBlock {
  // https URLs never get here: the plugin does not declare "image_urls" (Converse takes only bytes or s3://).
  const image = inlineImage(url);
  const format = image && FORMATS[image.mimeType];
  if (!image || !format) throw unsupported(path, "Bedrock Converse takes png, jpeg, gif or webp images as data: URLs.");
  return { image: { format, source: { bytes: image.data } } };
}

function toolInput(args: string, path: string): unknown {
  if (!args.trim()) return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalidRequest(`${path}: not valid JSON (Bedrock needs tool arguments as a JSON document).`);
  }
}

/** Text parts in order; images only where Converse takes them (user turns). */
function contentBlocks(m: ChatMessage, i: number): ContentBlock[] {
  return partsOf(m.content).map((p, j) => {
    if (p.type === "text") return { text: p.text };
    if (m.role === "user") return imageBlock(p.image_url.url, `messages.${i}.content.${j}.image_url.url`);
    throw unsupported(`messages.${i}.content.${j}`, `Bedrock Converse takes images in user messages only, not in ${m.role} messages.`);
  });
}

/** Converse rejects blank text blocks, so empty content yields no block. */
function blocksOf(m: ChatMessage, i: number, model: string): ContentBlock[] {
  if (m.role === "tool") {
    return [{ toolResult: { toolUseId: converseToolUseId(m.tool_call_id ?? "", model), content: [{ text: textOf(m.content) }] } }];
  }
  const blocks = contentBlocks(m, i);
  (m.tool_calls ?? []).forEach((c, j) => {
    const input = toolInput(c.function.arguments, `messages.${i}.tool_calls.${j}.function.arguments`);
    blocks.push({ toolUse: { toolUseId: converseToolUseId(c.id, model), name: c.function.name, input } });
  });
  return blocks;
}

/**
 * Roles must alternate, so consecutive turns of one role (several tool results, a tool
 * result then a user message) merge into one turn; tool results travel as user content.
 */
export function turns(messages: ChatMessage[], model: string): Turn[] {
  const out: Turn[] = [];
  messages.forEach((m, i) => {
    if (isInstruction(m)) return;
    const role = m.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(m, i, model);
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  });
  return out;
}

/** `system` and `developer` both become system blocks (SystemContentBlock has text, no images). */
export function systemBlocks(messages: ChatMessage[]): Array<{ text: string }> {
  const out: Array<{ text: string }> = [];
  messages.forEach((m, i) => {
    if (!isInstruction(m)) return;
    const image = partsOf(m.content).findIndex((p) => p.type === "image_url");
    if (image >= 0) throw unsupported(`messages.${i}.content.${image}`, "Bedrock Converse system prompts take text only.");
    const text = textOf(m.content);
    if (text) out.push({ text });
  });
  return out;
}

/** Tool names the history uses (each must be declared: Converse rejects undeclared tool blocks). */
export const historyToolNames = (messages: ChatMessage[]): string[] => [...new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)))];

export const hasToolBlocks = (messages: ChatMessage[]): boolean => messages.some((m) => m.role === "tool" || (m.tool_calls?.length ?? 0) > 0);

/** Converse id -> client id for every id that had to be rewritten. */
export function rewrittenIds(messages: ChatMessage[], model: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const m of messages) {
    for (const id of [m.tool_call_id, ...(m.tool_calls ?? []).map((c) => c.id)]) {
      if (id === undefined) continue;
      const sent = converseToolUseId(id, model);
      if (sent !== id) ids.set(sent, id);
    }
  }
  return ids;
}
