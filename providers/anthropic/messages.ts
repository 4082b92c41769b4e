/**
 * The OpenAI-format history as Anthropic turns: system and developer messages lifted to the
 * top-level `system`, tool calls and results as `tool_use` / `tool_result` blocks, same-role
 * neighbours merged (the API wants user and assistant to alternate; vercel/ai's
 * convert-to-anthropic-prompt.ts merges the same way), and the names of the tools the history
 * calls, since the API rejects tool blocks without a matching tool definition.
 */
import { type CacheControl, type ChatMessage, isInstruction, unsupported } from "../../src/plugin/contract.js";
import { contentBlocks, type ContentBlock, type TextBlock } from "./blocks.js";
import { toAnthropicId } from "./tool-ids.js";

type Block =
  | ContentBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl }
  | { type: "tool_result"; tool_use_id: string; content?: string | ContentBlock[]; cache_control?: CacheControl };

export interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

export interface Conversation {
  system?: string | TextBlock[];
  messages: Turn[];
  /** Tools the history calls, in order of first use. */
  historyTools: string[];
}

export function toConversation(messages: ChatMessage[]): Conversation {
  const system: TextBlock[] = [];
  const turns: Turn[] = [];
  const toolNames = new Set<string>();
  messages.forEach((m, i) => {
    if (isInstruction(m)) {
      const parts = contentBlocks(m.content, `messages.${i}`, false) as TextBlock[];
      const text = parts.map((b) => b.text).join("");
      const mark = m.cache_control ?? parts.findLast((b) => b.cache_control)?.cache_control;
      if (text) system.push(mark ? { type: "text", text, cache_control: mark } : { type: "text", text });
      return;
    }
    const blocks = marked(blocksOf(m, i), m);
    for (const b of blocks) if (b.type === "tool_use") toolNames.add(b.name);
    append(turns, m.role === "assistant" ? "assistant" : "user", blocks);
  });
  const out: Conversation = { messages: turns, historyTools: [...toolNames] };
  // One unmarked system message stays a plain string; several, or a cache-marked one, stay blocks (no invented separator).
  if (system.length === 1 && !system[0]!.cache_control) out.system = system[0]!.text;
  else if (system.length > 0) out.system = system;
  return out;
}

/** A message-level `cache_control` (docs/openai-compat.md) marks the message's last block, as Anthropic places breakpoints. */
function marked(blocks: Block[], m: ChatMessage): Block[] {
  const last = blocks.at(-1);
  if (m.cache_control && last) last.cache_control = m.cache_control;
  return blocks;
}

function blocksOf(m: ChatMessage, i: number): Block[] {
  const field = `messages.${i}`;
  if (m.role === "tool") return [toolResult(m, field)];
  if (m.role !== "assistant") return contentBlocks(m.content, field, true);
  const blocks: Block[] = contentBlocks(m.content, field, false);
  // A refusal echoed back is what the model said on that turn.
  if (blocks.length === 0 && m.refusal) blocks.push({ type: "text", text: m.refusal });
  m.tool_calls?.forEach((c, j) => {
    const input = toolInput(c.function.arguments, `${field}.tool_calls.${j}.function.arguments`);
    blocks.push({ type: "tool_use", id: toAnthropicId(c.id), name: c.function.name, input, ...(c.cache_control && { cache_control: c.cache_control }) });
  });
  return blocks;
}

/** Text-only results stay a string; results with images become text and image blocks (both allowed in tool_result). */
function toolResult(m: ChatMessage, field: string): Block {
  const blocks = contentBlocks(m.content, field, true);
  const id = toAnthropicId(m.tool_call_id ?? "");
  if (blocks.length === 0) return { type: "tool_result", tool_use_id: id };
  const textOnly = blocks.every((b) => b.type === "text");
  const content = textOnly ? (blocks as TextBlock[]).map((b) => b.text).join("") : blocks;
  return { type: "tool_result", tool_use_id: id, content };
}

/** Anthropic carries arguments as an object, not a string: anything but a JSON object cannot be sent. */
function toolInput(args: string, field: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw unsupported(field, "Anthropic needs tool-call arguments to be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}

/** Consecutive tool results (and a user message after them) become one user turn, results first. */
function append(turns: Turn[], role: Turn["role"], blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}
