/**
 * The tool kinds of a Responses request beyond `function` (docs/responses.md "Tool kinds"), as
 * Codex CLI sends them: `namespace` (a group of functions whose calls name it), `custom`
 * (free-form input, optionally a Lark or regex grammar) and the hosted tools OpenAI runs itself
 * (`web_search`, `tool_search`, `file_search`, ...). Translated for a chat adapter: a namespace's
 * functions are offered as `<namespace>__<name>`, a custom tool as a function with one string
 * parameter `input`; hosted tools are left out and named in `X-Gateway-Ignored`. The calls the
 * model makes are mapped back to the shape the client sent (a `function_call` with its
 * `namespace`, a `custom_tool_call` with its `input`).
 */
import { z } from "zod";
import { functionFields, ToolName, type Tool } from "../../core/chat-request.js";
import { unsupported } from "../../plugin/contract.js";

const FunctionTool = z.strictObject({ type: z.literal("function"), ...functionFields, defer_loading: z.boolean().optional() });

const Grammar = z.strictObject({ type: z.literal("grammar"), syntax: z.enum(["lark", "regex"]), definition: z.string() });
const CustomTool = z.strictObject({
  type: z.literal("custom"),
  name: ToolName,
  description: z.string().optional(),
  format: z.discriminatedUnion("type", [z.strictObject({ type: z.literal("text") }), Grammar]).optional(),
  defer_loading: z.boolean().optional(),
});

const NamespaceTool = z.strictObject({
  type: z.literal("namespace"),
  name: ToolName,
  description: z.string().optional(),
  tools: z.array(z.discriminatedUnion("type", [FunctionTool, CustomTool])).max(128),
});

/** The tools OpenAI runs on its side (OAPI `Tool`): forwarded natively, else left out. */
const HOSTED_TOOLS = [
  "web_search",
  "web_search_preview",
  "web_search_2025_08_26",
  "web_search_preview_2025_03_11",
  "tool_search",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer_use_preview",
  "computer",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
] as const;

const Hosted = HOSTED_TOOLS.map((type) => z.looseObject({ type: z.literal(type) }));

export const ResponsesTool = z.discriminatedUnion("type", [FunctionTool, CustomTool, NamespaceTool, ...Hosted]);
export type ResponsesTool = z.infer<typeof ResponsesTool>;
type CustomTool = z.infer<typeof CustomTool>;
type FunctionTool = z.infer<typeof FunctionTool>;

/** What a chat tool name the model calls stands for in the client's terms. */
interface ToolOrigin {
  kind: "function" | "custom";
  name: string;
  namespace?: string;
}
export type ToolMap = Map<string, ToolOrigin>;

/** The separator between a namespace and its function in the flat name a chat model sees. */
const SEP = "__";
export const flatName = (namespace: string | undefined, name: string) => (namespace ? `${namespace}${SEP}${name}` : name);

export interface ChatTools {
  tools: Tool[];
  map: ToolMap;
  /** `tools.<type>` of every hosted tool left out, in request order without repeats. */
  ignored: string[];
}

/** The request's tools as chat function tools; hosted tools are left out and listed. */
export function chatTools(tools: ResponsesTool[]): ChatTools {
  const out: ChatTools = { tools: [], map: new Map(), ignored: [] };
  for (const t of tools) {
    if (t.type === "function" || t.type === "custom") addTool(out, t, undefined);
    else if (t.type === "namespace") t.tools.forEach((inner) => addTool(out, inner, t.name));
    else if (!out.ignored.includes(`tools.${t.type}`)) out.ignored.push(`tools.${t.type}`);
  }
  return out;
}

/** Under `server.compat: strict` a hosted tool the route's provider does not run is a 400 naming it. */
export function refuseHosted(tools: ResponsesTool[]): void {
  const i = tools.findIndex((t) => t.type !== "function" && t.type !== "custom" && t.type !== "namespace");
  if (i < 0) return;
  throw unsupported(
    `tools.${i}.type`,
    `'${tools[i]!.type}' is a tool OpenAI runs itself; this model's provider has none (server.compat: openai leaves it out).`,
  );
}

function addTool(out: ChatTools, t: FunctionTool | CustomTool, namespace: string | undefined): void {
  const name = flatName(namespace, t.name);
  out.map.set(name, { kind: t.type, name: t.name, ...(namespace && { namespace }) });
  if (t.type === "function") {
    const { type, defer_loading: _d, ...fn } = t;
    out.tools.push({ type, function: { ...fn, name } });
    return;
  }
  out.tools.push({ type: "function", function: { name, description: customDescription(t), parameters: INPUT_PARAMETERS } });
}

/** A custom tool's one parameter: its free-form input. */
const INPUT_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's whole input as free-form text." } },
  required: ["input"],
  additionalProperties: false,
};

function customDescription(t: CustomTool): string {
  const head = t.description ?? "";
  const f = t.format;
  if (!f || f.type === "text") return head;
  return `${head}\n\nPut the tool's input, as raw text (not JSON), in the \`input\` parameter. It must match this ${f.syntax} grammar:\n${f.definition}`;
}

/** A custom tool call's `input` from the function arguments the model wrote (`{"input": "..."}`). */
export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (parsed && typeof parsed.input === "string") return parsed.input;
  } catch {
    // not JSON: the model wrote the input itself
  }
  return args;
}
