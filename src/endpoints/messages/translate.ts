/**
 * A Messages request in the gateway's internal form (core/chat-request.ts), for every provider
 * that does not speak the Messages API natively (docs/messages.md, "Translated"). Hints with no
 * meaning elsewhere are dropped (`cache_control`, `context_management`, `metadata`,
 * `defer_loading`, thinking blocks of earlier turns); a field that would change the answer and
 * has no translation is a problem, a 400 naming it when the request is routed to such a provider.
 */
import type { ChatMessage, ChatRequest, ContentPart, Tool, ToolCall } from "../../core/chat-request.js";
import type { GatewayError } from "../../core/errors.js";
import { unsupported } from "../../plugin/contract.js";
import { resultText, systemText, userParts, type Problems } from "./translate-content.js";
import type { ContentBlock, MessagesRequest, ToolParam } from "./schema.js";

export interface Translation {
  chat: ChatRequest;
  /** Each a 400 on a translated route; a native route has none of them. */
  problems: GatewayError[];
}

/** Top-level fields that mean nothing to another provider: dropped. */
const DROPPED = new Set(["cache_control", "context_management", "metadata", "service_tier", "betas", "anthropic_version"]);
const READ = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "stop_sequences",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "stream",
]);

export function toChatRequest(req: MessagesRequest): Translation {
  const problems: Problems = [];
  const messages: ChatMessage[] = [];
  const system = req.system === undefined ? "" : systemText(req.system);
  if (system) messages.push({ role: "system", content: system });
  req.messages.forEach((m, i) => messages.push(...turnOf(m, `messages.${i}`, problems)));
  const chat: ChatRequest = { model: req.model, messages, max_tokens: req.max_tokens };
  if (req.stream) chat.stream = true;
  if (req.temperature !== undefined) chat.temperature = req.temperature;
  if (req.top_p !== undefined) chat.top_p = req.top_p;
  if (req.stop_sequences?.length) chat.stop = req.stop_sequences;
  if (req.top_k !== undefined) problems.push(unsupported("top_k", "only Anthropic takes top_k; leave it out for this model."));
  toolsOf(req, chat, problems);
  const effort = effortOf(req);
  if (effort) chat.reasoning_effort = effort;
  outputFormat(req, chat, problems);
  for (const key of Object.keys(req)) {
    if (!READ.has(key) && !DROPPED.has(key)) problems.push(unsupported(key, "this field has no equivalent for the provider that serves this model."));
  }
  return { chat, problems };
}

/** One Messages turn as chat messages: tool results first (each a `tool` message), then the rest. */
function turnOf(m: MessagesRequest["messages"][number], at: string, problems: Problems): ChatMessage[] {
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (m.role === "assistant") return [assistantOf(m.content, at, problems)];
  const out: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  m.content.forEach((b, j) => {
    const where = `${at}.content.${j}`;
    if (b.type === "tool_result") {
      const r = b as { tool_use_id: string; content?: string | ContentBlock[]; is_error?: boolean };
      const text = r.content === undefined ? "" : resultText(r.content, `${where}.content`, problems);
      out.push({ role: "tool", tool_call_id: r.tool_use_id, content: r.is_error ? `Error: ${text}` : text });
    } else parts.push(...userParts(b, where, problems));
  });
  if (parts.length) out.push({ role: m.role, content: m.role === "system" ? parts.map((p) => (p.type === "text" ? p.text : "")).join("\n\n") : parts });
  return out;
}

/** Text joined, tool_use blocks as tool calls; thinking blocks are the model's own and stay behind. */
function assistantOf(blocks: Exclude<MessagesRequest["messages"][number]["content"], string>, at: string, problems: Problems): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  blocks.forEach((b, j) => {
    if (b.type === "text") text += (b as { text: string }).text;
    else if (b.type === "tool_use") {
      const u = b as { id: string; name: string; input?: unknown };
      calls.push({ id: u.id, type: "function", function: { name: u.name, arguments: JSON.stringify(u.input ?? {}) } });
    } else if (b.type !== "thinking" && b.type !== "redacted_thinking")
      problems.push(unsupported(`${at}.content.${j}`, `a '${b.type}' block in an assistant turn has no equivalent for this model.`));
  });
  const msg: ChatMessage = { role: "assistant", content: text || (calls.length ? null : "") };
  if (calls.length) msg.tool_calls = calls;
  return msg;
}

function toolsOf(req: MessagesRequest, chat: ChatRequest, problems: Problems): void {
  const tools: Tool[] = [];
  (req.tools ?? []).forEach((t, i) => {
    const tool = toolOf(t);
    if (tool) tools.push(tool);
    else problems.push(unsupported(`tools.${i}`, `the server tool '${t.type}' runs only on Anthropic.`));
  });
  const choice = req.tool_choice;
  if (choice?.type === "none") chat.tool_choice = "none";
  if (!tools.length) return;
  chat.tools = tools;
  if (choice?.type === "any") chat.tool_choice = "required";
  if (choice?.type === "tool") chat.tool_choice = { type: "function", function: { name: choice.name } };
  if (choice && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use) chat.parallel_tool_calls = false;
}

function toolOf(t: ToolParam): Tool | undefined {
  if (!("input_schema" in t) || (t.type !== undefined && t.type !== "custom")) return undefined;
  const fn: Tool["function"] = { name: t.name, parameters: t.input_schema as Record<string, unknown> };
  if (typeof t.description === "string") fn.description = t.description;
  return { type: "function", function: fn };
}

type Effort = NonNullable<ChatRequest["reasoning_effort"]>;
const EFFORTS: Record<string, Effort> = { minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

/** `output_config.effort` wins; else an enabled thinking budget as a share of max_tokens; adaptive is medium. */
function effortOf(req: MessagesRequest): Effort | undefined {
  const stated = req.output_config?.effort;
  if (req.thinking?.type === "disabled") return undefined;
  if (stated && EFFORTS[stated]) return EFFORTS[stated];
  if (req.thinking?.type === "adaptive") return "medium";
  if (req.thinking?.type !== "enabled") return undefined;
  const share = req.thinking.budget_tokens / req.max_tokens;
  return share < 0.2 ? "low" : share < 0.5 ? "medium" : "high";
}

function outputFormat(req: MessagesRequest, chat: ChatRequest, problems: Problems): void {
  const format = req.output_config?.format;
  if (!format) return;
  const schema = (format as { schema?: unknown }).schema;
  if (format.type === "json_schema" && schema && typeof schema === "object") {
    chat.response_format = { type: "json_schema", json_schema: { name: "output", schema: schema as Record<string, unknown>, strict: true } };
  } else problems.push(unsupported("output_config.format", `the format '${format.type}' has no equivalent for this model.`));
}
