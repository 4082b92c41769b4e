/**
 * `response_format` json_schema / json_object as a forced tool. Anthropic has native structured
 * output (`output_config: {format: {type: "json_schema", schema}}`, GA; earlier the beta
 * `output_format` with header `structured-outputs-2025-11-13`,
 * https://docs.claude.com/en/docs/build-with-claude/structured-outputs), but only on newer
 * models (Sonnet 4.5, Opus 4.1 and later per vercel/ai's getModelCapabilities), and the catalog
 * does not say which upstream model an endpoint runs. The forced tool works on every Claude
 * model with tool use, and it is vercel/ai's own fallback (anthropic-language-model.ts:
 * `jsonResponseTool`, "Respond with a JSON object.", the tool input returned as the answer text,
 * `tool_use` reported as a plain stop). Forced tool use guarantees an object that follows
 * `input_schema` closely, not the byte-exact schema conformance of native structured output.
 * json_object has no schema-less JSON mode on Anthropic: it becomes the same tool with
 * `{type: "object"}`.
 */
import { type ChatRequest, unsupported } from "../../src/plugin/contract.js";
import type { AnthropicTool, AnthropicToolChoice } from "./tools.js";

export interface JsonOutput {
  tool: AnthropicTool;
  choice: AnthropicToolChoice;
}

/**
 * The forced tool for a JSON response format, or undefined. With tools the client lets the
 * model call (any tool_choice but none), the answer would have to be either a tool call or the
 * JSON, and one forced tool can express only one of them: that is a 400 rather than silently
 * dropping the tools or the format. `taken` are the tool names already declared.
 */
export function jsonOutputOf(req: ChatRequest, taken: ReadonlySet<string>): JsonOutput | undefined {
  const format = req.response_format;
  if (!format || format.type === "text") return undefined;
  if (req.tools?.length && req.tool_choice !== "none") {
    throw unsupported(
      "response_format",
      'Anthropic produces JSON output through a forced tool, which cannot be combined with tools the model may call; send tool_choice: "none" or leave the tools out.',
    );
  }
  const spec = format.type === "json_schema" ? format.json_schema : undefined;
  const name = spec?.name ?? "json";
  const given = spec?.schema ?? {};
  const schema = given.type === undefined ? { type: "object", ...given } : given;
  if (schema.type !== "object")
    throw unsupported("response_format", 'Anthropic produces JSON output as a tool input, which must be an object schema ({"type": "object", ...}).');
  if (taken.has(name)) throw unsupported("response_format", `the name '${name}' is also a tool name in this request; rename the json_schema.`);
  const tool: AnthropicTool = { name, description: spec?.description ?? "Respond with a JSON object.", input_schema: schema };
  // One coherent object: no parallel calls (as vercel/ai sends it).
  return { tool, choice: { type: "tool", name, disable_parallel_tool_use: true } };
}
