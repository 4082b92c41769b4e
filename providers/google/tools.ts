/**
 * OpenAI `tools` / `tool_choice` -> Gemini `tools[].functionDeclarations` and
 * `toolConfig.functionCallingConfig` (https://ai.google.dev/api/caching#Tool,
 * https://ai.google.dev/api/caching#ToolConfig). Gemini has no switch for parallel calls, so
 * `parallel_tool_calls: false` is not a feature of this adapter (the core answers 400).
 */
import { forGemini } from "./schema.js";
import { type ChatMessage, type ChatRequest, type Tool, invalidRequest } from "../../src/plugin/contract.js";

type Declaration = { name: string; description?: string; parametersJsonSchema?: Record<string, unknown> };
type CallingConfig = { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] };

/** `tools` and `toolConfig` of the GenerateContentRequest, when there is anything to declare. */
export function toolFields(req: ChatRequest): Record<string, unknown> {
  const offered = (req.tools ?? []).map(declaration);
  const declared = [...offered, ...historyOnly(req.messages, new Set(offered.map((d) => d.name)))];
  const fields: Record<string, unknown> = {};
  if (declared.length) fields.tools = [{ functionDeclarations: declared }];
  const config = offered.length ? callingConfig(req) : undefined;
  if (config) fields.toolConfig = { functionCallingConfig: config };
  return fields;
}

/**
 * `parametersJsonSchema` (JSON Schema), not `parameters` (Google's OpenAPI subset): see
 * schema.ts. A function without parameters leaves it unset, as FunctionDeclaration documents.
 */
function declaration(tool: Tool): Declaration {
  const { name, description, parameters } = tool.function;
  const d: Declaration = { name };
  if (description) d.description = description;
  if (parameters) d.parametersJsonSchema = forGemini(parameters);
  return d;
}

/**
 * Functions named in the history but not offered now, declared with a permissive schema so
 * Gemini accepts the turns that replay them. `parametersJsonSchema`, because an OBJECT
 * `parameters` without properties is a 400.
 */
function historyOnly(messages: ChatMessage[], offered: Set<string>): Declaration[] {
  const names = new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)));
  return [...names].filter((n) => !offered.has(n)).map((name) => ({ name, parametersJsonSchema: { type: "object" } }));
}

/**
 * FunctionCallingConfig.mode (https://ai.google.dev/api/caching#FunctionCallingConfig): AUTO, NONE, and ANY
 * ("the model is constrained to always predict a function call"), which `allowedFunctionNames`
 * narrows to one function for a named choice. No choice leaves Gemini's default (AUTO).
 */
function callingConfig(req: ChatRequest): CallingConfig | undefined {
  const choice = req.tool_choice;
  if (choice === undefined) return undefined;
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "none") return { mode: "NONE" };
  if (choice === "required") return { mode: "ANY" };
  const name = choice.function.name;
  if (!req.tools?.some((t) => t.function.name === name)) {
    throw invalidRequest(`tool_choice names the function '${name}', which is not in tools.`, "invalid_value", "tool_choice");
  }
  return { mode: "ANY", allowedFunctionNames: [name] };
}
