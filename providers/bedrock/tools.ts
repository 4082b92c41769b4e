/**
 * `tools`, `tool_choice` and `response_format` -> Converse `toolConfig`.
 * References: ToolConfiguration, ToolSpecification and ToolChoice
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html,
 * …/API_runtime_ToolSpecification.html, …/API_runtime_ToolChoice.html): `auto`, `any`
 * (at least one tool) and `tool` (a named one). There is no "none" member.
 */
import { type ChatRequest, unsupported } from "../../src/plugin/contract.js";
import { hasToolBlocks, historyToolNames } from "./messages.js";

interface ToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

export interface ToolPlan {
  toolConfig?: { tools: ToolSpec[]; toolChoice?: Record<string, unknown> };
  /** The forced tool whose input is the answer (response_format). */
  jsonTool?: string;
}

/**
 * Converse has no portable structured-output field, so `response_format` becomes a forced
 * tool whose input is the answer, as vercel/ai does for Bedrock (name `json`, description
 * "Respond with a JSON object.", packages/amazon-bedrock/src/amazon-bedrock-chat-language-model.ts).
 */
const JSON_TOOL = "json";

const spec = (name: string, json: Record<string, unknown>, description?: string): ToolSpec => ({
  toolSpec: { name, ...(description?.trim() ? { description } : {}), inputSchema: { json } },
});

/** The schema the answer must follow; json_object asks only for an object. */
function jsonToolSpec(req: ChatRequest): ToolSpec | undefined {
  const format = req.response_format;
  if (format?.type === "json_schema") {
    return spec(JSON_TOOL, format.json_schema.schema ?? { type: "object" }, format.json_schema.description ?? "Respond with a JSON object.");
  }
  if (format?.type === "json_object") return spec(JSON_TOOL, { type: "object" }, "Respond with a JSON object.");
  return undefined;
}

function toolChoice(req: ChatRequest): Record<string, unknown> | undefined {
  const choice = req.tool_choice;
  if (choice === "auto") return { auto: {} };
  if (choice === "required") return { any: {} };
  if (typeof choice === "object") return { tool: { name: choice.function.name } };
  return undefined;
}

/**
 * A request that forces the answer through the `json` tool cannot also let the model call
 * the client's tools: each turn would then be either a tool call or the answer, which
 * Converse's one toolChoice cannot express (forcing `json` forbids the others, `any` lets
 * the model skip the answer). So the pair is refused rather than half-honoured.
 */
function checkCombination(req: ChatRequest): void {
  if (req.response_format?.type !== "json_object" && req.response_format?.type !== "json_schema") return;
  if (req.tools?.length) throw unsupported("response_format", "on Bedrock, structured output is a forced tool and cannot be combined with tools.");
}

/**
 * `tool_choice: "none"`: Converse has no such member, so the tools are not declared. But
 * Converse rejects toolUse/toolResult blocks unless toolConfig declares their tools
 * (langgenius/dify#17545), and declared tools can be called: with tool history, "none"
 * cannot be honoured and is refused rather than ignored.
 */
function declaredTools(req: ChatRequest): ToolSpec[] {
  if (req.tool_choice === "none") {
    if (hasToolBlocks(req.messages))
      throw unsupported("tool_choice", "Bedrock Converse has no 'none' and must declare the tools the conversation already used.");
    return [];
  }
  return (req.tools ?? []).map((t) => spec(t.function.name, t.function.parameters ?? { type: "object", properties: {} }, t.function.description));
}

export function planTools(req: ChatRequest): ToolPlan {
  checkCombination(req);
  const tools = declaredTools(req);
  const json = jsonToolSpec(req);
  if (json) tools.push(json);
  // History names not declared by this request: a permissive schema, enough for Converse to accept the blocks.
  const known = new Set(tools.map((t) => t.toolSpec.name));
  for (const name of historyToolNames(req.messages)) if (!known.has(name)) tools.push(spec(name, { type: "object" }));
  if (!tools.length) return {};
  const choice = json ? { tool: { name: JSON_TOOL } } : req.tools?.length ? toolChoice(req) : undefined;
  return { toolConfig: { tools, ...(choice ? { toolChoice: choice } : {}) }, jsonTool: json ? JSON_TOOL : undefined };
}
