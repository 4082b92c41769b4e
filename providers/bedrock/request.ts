/**
 * Chat Completions request -> Bedrock Converse body.
 * Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
import { isInstruction, textOf } from "../../src/content.js";
import { invalidRequest } from "../../src/errors.js";
import { unsupported } from "../../src/provider.js";
import type { ChatMessage, ChatRequest } from "../../src/schema.js";

type ContentBlock =
  | { text: string }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string }> } };

interface Turn {
  role: "user" | "assistant";
  content: ContentBlock[];
}

/** Converse has one choice, no seed and no penalties: say so instead of dropping them. */
function checkSupported(req: ChatRequest): void {
  if (req.n !== undefined && req.n > 1) throw unsupported("n", "Bedrock Converse returns a single choice; n must be 1.");
  if (req.seed !== undefined) throw unsupported("seed", "Bedrock Converse has no seed parameter.");
  if (req.frequency_penalty) throw unsupported("frequency_penalty", "Bedrock Converse has no frequency penalty.");
  if (req.presence_penalty) throw unsupported("presence_penalty", "Bedrock Converse has no presence penalty.");
}

function toolInput(args: string, path: string): unknown {
  if (!args.trim()) return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalidRequest(`${path}: not valid JSON (Bedrock needs tool arguments as a JSON document).`);
  }
}

/** Converse rejects blank text blocks, so empty content yields no block. */
function blocksOf(m: ChatMessage, i: number): ContentBlock[] {
  const text = textOf(m.content);
  if (m.role === "tool") return [{ toolResult: { toolUseId: m.tool_call_id ?? "", content: [{ text }] } }];
  const blocks: ContentBlock[] = text ? [{ text }] : [];
  (m.tool_calls ?? []).forEach((c, j) => {
    const input = toolInput(c.function.arguments, `messages.${i}.tool_calls.${j}.function.arguments`);
    blocks.push({ toolUse: { toolUseId: c.id, name: c.function.name, input } });
  });
  return blocks;
}

/**
 * Roles must alternate, so consecutive turns of one role (several tool results, a tool
 * result then a user message) merge into one turn; tool results travel as user content.
 */
function turns(messages: ChatMessage[]): Turn[] {
  const out: Turn[] = [];
  messages.forEach((m, i) => {
    if (isInstruction(m)) return;
    const role = m.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(m, i);
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  });
  return out;
}

function inferenceConfig(req: ChatRequest, options: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  // Converse fills in the model's default when maxTokens is absent; `maxTokens` in the config overrides that.
  const fallback = typeof options.maxTokens === "number" && options.maxTokens > 0 ? Math.floor(options.maxTokens) : undefined;
  const maxTokens = req.max_tokens ?? fallback;
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  // Converse accepts 0..1 (Anthropic, Nova, Llama alike); OpenAI's 0..2 is clamped, not rejected.
  if (req.temperature !== undefined) config.temperature = Math.min(1, Math.max(0, req.temperature));
  if (req.top_p !== undefined) config.topP = req.top_p;
  const stop = req.stop === undefined ? [] : [req.stop].flat().filter((s) => s.length > 0);
  if (stop.length) config.stopSequences = stop;
  return config;
}

/** Bedrock rejects toolUse/toolResult blocks unless toolConfig is present: declare the names used. */
function toolConfig(messages: ChatMessage[]): Record<string, unknown> | undefined {
  const names = [...new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)))];
  if (!names.length) return undefined;
  return { tools: names.map((name) => ({ toolSpec: { name, inputSchema: { json: { type: "object" } } } })) };
}

export function toConverse(req: ChatRequest, options: Record<string, unknown>): Record<string, unknown> {
  checkSupported(req);
  const body: Record<string, unknown> = { messages: turns(req.messages) };
  const system = req.messages.filter(isInstruction).map((m) => ({ text: textOf(m.content) })).filter((b) => b.text);
  if (system.length) body.system = system;
  const inference = inferenceConfig(req, options);
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  const tools = toolConfig(req.messages);
  if (tools) body.toolConfig = tools;
  return body;
}
