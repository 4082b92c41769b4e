/**
 * The OpenAI-format history as Anthropic turns: system messages lifted to the top-level
 * `system`, tool calls and results as blocks, same-role neighbours merged (the API wants
 * user and assistant to alternate), and every tool named in the history declared, since
 * the API rejects tool blocks without a matching tool definition.
 */
import { unsupported } from "../../src/provider.js";
import { isInstruction, textOf } from "../../src/content.js";
import type { ChatMessage } from "../../src/schema.js";

export type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content?: string };

export interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

export interface Conversation {
  system?: string | Array<{ type: "text"; text: string }>;
  messages: Turn[];
  tools?: Array<{ name: string; input_schema: { type: "object" } }>;
}

export function toConversation(messages: ChatMessage[]): Conversation {
  const system: string[] = [];
  const turns: Turn[] = [];
  const toolNames = new Set<string>();
  messages.forEach((m, i) => {
    if (isInstruction(m)) {
      const text = textOf(m.content);
      if (text) system.push(text);
      return;
    }
    const blocks = blocksOf(m, i);
    for (const b of blocks) if (b.type === "tool_use") toolNames.add(b.name);
    append(turns, m.role === "assistant" ? "assistant" : "user", blocks);
  });
  const out: Conversation = { messages: turns };
  // One system message stays a plain string; several stay separate blocks (no invented separator).
  if (system.length === 1) out.system = system[0];
  else if (system.length > 1) out.system = system.map((text) => ({ type: "text", text }));
  // The client declares no tools (api.md has none), so a permissive schema is all we can say.
  if (toolNames.size > 0) out.tools = [...toolNames].map((name) => ({ name, input_schema: { type: "object" } }));
  return out;
}

/** Empty text is left out: the API rejects empty text blocks. */
function blocksOf(m: ChatMessage, i: number): Block[] {
  if (m.role === "tool") {
    const text = textOf(m.content);
    return [{ type: "tool_result", tool_use_id: m.tool_call_id ?? "", ...(text ? { content: text } : {}) }];
  }
  const text = textOf(m.content);
  const blocks: Block[] = text ? [{ type: "text", text }] : [];
  if (m.role === "assistant") {
    m.tool_calls?.forEach((c, j) => {
      const input = toolInput(c.function.arguments, `messages.${i}.tool_calls.${j}.function.arguments`);
      blocks.push({ type: "tool_use", id: c.id, name: c.function.name, input });
    });
  }
  return blocks;
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
