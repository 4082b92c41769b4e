/**
 * OpenAI `tools`, `tool_choice` and `parallel_tool_calls` as Anthropic's `tools` and
 * `tool_choice` (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use;
 * mapping as vercel/ai's anthropic-prepare-tools.ts, openai-surface.md A1, A3, A4):
 * auto -> {type: "auto"}, none -> {type: "none"}, required -> {type: "any"}, a named function ->
 * {type: "tool", name}. `parallel_tool_calls: false` has no field of its own: it is
 * `disable_parallel_tool_use: true` inside `tool_choice` (with `auto` when none was given).
 * OpenAI's `strict` is not sent: Anthropic's `strict` needs a structured-outputs model.
 */
import { type ChatRequest, type Tool, unsupported } from "../../src/plugin/contract.js";

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export interface AnthropicToolChoice {
  type: "auto" | "any" | "none" | "tool";
  name?: string;
  disable_parallel_tool_use?: boolean;
}

/** `input_schema` must be an object schema: a missing `parameters` is a function without arguments. */
export function declaredTool(t: Tool): AnthropicTool {
  const params = t.function.parameters;
  const input_schema = params === undefined ? { type: "object", properties: {} } : params.type === undefined ? { type: "object", ...params } : params;
  return { name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), input_schema };
}

/**
 * Tools the history calls but the request does not declare: the API rejects tool blocks without
 * a definition, and a permissive schema is all that can be said about them.
 */
export const historyTool = (name: string): AnthropicTool => ({ name, input_schema: { type: "object" } });

/** The Anthropic tool_choice, or undefined to leave the default (auto, parallel allowed). */
export function toolChoiceOf(req: ChatRequest): AnthropicToolChoice | undefined {
  const choice = req.tool_choice;
  if (!req.tools?.length) {
    if (choice === "required" || typeof choice === "object") throw unsupported("tool_choice", "forces a tool, but the request declares no tools.");
    return undefined;
  }
  if (choice === undefined && req.parallel_tool_calls !== false) return undefined;
  const out = mapChoice(choice, req.tools);
  if (req.parallel_tool_calls === false && out.type !== "none") out.disable_parallel_tool_use = true;
  return out;
}

function mapChoice(choice: ChatRequest["tool_choice"], tools: Tool[]): AnthropicToolChoice {
  if (choice === undefined || choice === "auto") return { type: "auto" };
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any" };
  const name = choice.function.name;
  if (!tools.some((t) => t.function.name === name)) throw unsupported("tool_choice", `names '${name}', which is not one of the request's tools.`);
  return { type: "tool", name };
}
