/**
 * POST /v1/responses as zod schemas (docs/responses.md), from OpenAI's published reference
 * (openai/openai-openapi `openapi.yaml`: CreateResponse, EasyInputMessage, FunctionToolCall,
 * FunctionCallOutputItemParam, FunctionTool, TextResponseFormatJsonSchema; field by field as
 * openai-node 6.49's generated `resources/responses/responses.d.ts` types them).
 *
 * Strict like /v1/chat/completions (an unknown field is a 400 naming it), inside input items
 * too, except for the fields clients replay from earlier output items (`id`, `status`,
 * `annotations`, `logprobs`, `phase`, ...): those are accepted and not read. Tool kinds beyond
 * `function` are endpoints/responses/tools.ts. What cannot be served is refused, never
 * silently ignored (`conversation`, `background`, ...); hosted tools a provider does not run
 * are left out and named in `X-Gateway-Ignored` (docs/responses.md).
 */
import { z } from "zod";
import { ImagePart, ToolName } from "../../core/chat-request.js";
import { ResponsesTool } from "./tools.js";

const ImageUrl = ImagePart.shape.image_url.shape.url;
const Detail = z.enum(["auto", "low", "high"]);

/**
 * Fields clients replay from earlier output items (OutputMessage, FunctionToolCall,
 * ReasoningItem; openai-node's stream helpers add `parsed_arguments` and `parsed`) that the
 * gateway has no use for: accepted and not read. Any other unknown
 * field in an item is a 400 naming its path (`input.0.foo: Unrecognized key`), dropped under
 * `server.compat: passthrough` (docs/http.md "Responses").
 */
const replayed = <K extends string>(...keys: K[]) => Object.fromEntries(keys.map((k) => [k, z.unknown().optional()])) as Record<K, z.ZodOptional<z.ZodUnknown>>;

/** The input item schemas; `strict` refuses unknown fields, else they are dropped. */
function itemSchemas(strict: boolean) {
  const object = <S extends z.core.$ZodLooseShape>(shape: S) => (strict ? z.strictObject(shape) : z.object(shape));
  const InputText = object({ type: z.literal("input_text"), text: z.string() });
  const InputImage = object({ type: z.literal("input_image"), image_url: ImageUrl.optional(), file_id: z.string().optional(), detail: Detail.optional() });
  /** Accepted by the schema so the translation can refuse it by name (no provider reads files here). */
  const InputFile = z.object({ type: z.literal("input_file") });
  /** Assistant turns replayed from earlier output (OutputMessage content). */
  const OutputText = object({ type: z.literal("output_text"), text: z.string(), ...replayed("annotations", "logprobs", "parsed") });
  const Refusal = object({ type: z.literal("refusal"), refusal: z.string() });
  const ContentPart = z.discriminatedUnion("type", [InputText, InputImage, InputFile, OutputText, Refusal]);
  const MessageItem = object({
    type: z.literal("message").optional(),
    role: z.enum(["user", "assistant", "system", "developer"]),
    content: z.union([z.string(), z.array(ContentPart)]),
    ...replayed("id", "status", "phase"),
  });
  const FunctionCallItem = object({
    type: z.literal("function_call"),
    call_id: z.string().min(1),
    name: ToolName,
    /** The namespace tool the function belongs to (Codex's `multi_agent_v1`). */
    namespace: ToolName.optional(),
    arguments: z.string(),
    ...replayed("id", "status", "parsed_arguments"),
  });
  const FunctionCallOutputItem = object({
    type: z.literal("function_call_output"),
    call_id: z.string().min(1),
    output: z.union([z.string(), z.array(z.discriminatedUnion("type", [InputText, InputImage, InputFile]))]),
    ...replayed("id", "status"),
  });
  /** A call of a custom (free-form) tool and its output (docs/responses.md "Tool kinds"). */
  const CustomToolCallItem = object({
    type: z.literal("custom_tool_call"),
    call_id: z.string().min(1),
    name: ToolName,
    input: z.string(),
    ...replayed("id", "status"),
  });
  const CustomToolCallOutputItem = object({
    type: z.literal("custom_tool_call_output"),
    call_id: z.string().min(1),
    output: z.union([z.string(), z.array(z.discriminatedUnion("type", [InputText, InputImage, InputFile]))]),
    ...replayed("id", "status"),
  });
  /** A reasoning item from an earlier turn: the providers behind the gateway cannot read it, so it is dropped. */
  const ReasoningItem = object({ type: z.literal("reasoning"), ...replayed("id", "summary", "content", "encrypted_content", "status") });
  /** Items only a native route produces (hosted tools' calls, ...), replayed by clients: forwarded natively, dropped when translated. */
  const Hosted = HOSTED_ITEMS.map((type) => z.looseObject({ type: z.literal(type) }));
  return {
    ContentPart,
    InputItem: z.discriminatedUnion("type", [
      MessageItem,
      FunctionCallItem,
      FunctionCallOutputItem,
      CustomToolCallItem,
      CustomToolCallOutputItem,
      ReasoningItem,
      ...Hosted,
    ]),
  };
}

/** OpenAI's output and input item types beyond messages, functions and custom tools (OAPI `Item`). */
const HOSTED_ITEMS = [
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "tool_search_call",
  "tool_search_output",
  "compaction",
  "item_reference",
] as const;

const StrictItems = itemSchemas(true);
const LooseItems = itemSchemas(false);
export type ContentPart = z.infer<typeof StrictItems.ContentPart>;
export type InputItem = z.infer<typeof StrictItems.InputItem>;

const ToolChoice = z.union([z.enum(["none", "auto", "required"]), z.strictObject({ type: z.literal("function"), name: ToolName })]);

const TextFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({
    type: z.literal("json_schema"),
    name: ToolName,
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
  }),
]);

const shape = {
  model: z.string().min(1),
  instructions: z.string().optional(),
  previous_response_id: z.string().min(1).optional(),
  store: z.boolean().optional(),
  stream: z.boolean().optional(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).optional(),
  tools: z.array(ResponsesTool).max(128).optional(),
  tool_choice: ToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  text: z.strictObject({ format: TextFormat.optional(), verbosity: z.enum(["low", "medium", "high"]).optional() }).optional(),
  // `summary` asks for reasoning summaries in the output: forwarded natively (OpenAI), else
  // dropped (the translated APIs return none as such; docs/responses.md "Codex's fields").
  reasoning: z
    .strictObject({ effort: z.enum(["minimal", "low", "medium", "high"]).optional(), summary: z.enum(["auto", "concise", "detailed"]).optional() })
    .optional(),
  max_output_tokens: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_logprobs: z.number().int().min(0).max(20).optional(),
  // What the client wants added to the output; values without meaning here change nothing
  // (`reasoning.encrypted_content`: there is no reasoning item to carry it). The Agents SDK sends [] on every request.
  include: z.array(z.string()).optional(),
  // "disabled" is what the gateway does; "auto" (drop items past the context window) is accepted as the same.
  truncation: z.enum(["auto", "disabled"]).optional(),
  metadata: z.record(z.string(), z.string().max(512)).optional(),
  // Codex's identifiers of its session and turn: forwarded natively, else dropped.
  client_metadata: z.record(z.string(), z.string()).optional(),
  user: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  safety_identifier: z.string().optional(),
  service_tier: z.enum(["auto", "default", "flex", "scale", "priority"]).optional(),
};

export const ResponsesRequest = z.strictObject({ ...shape, input: z.union([z.string(), z.array(StrictItems.InputItem)]).optional() });
/** `server.compat: passthrough`: unknown fields, top level and in items, are accepted and dropped, as on the chat route. */
export const LooseResponsesRequest = z.object({ ...shape, input: z.union([z.string(), z.array(LooseItems.InputItem)]).optional() });
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

// ---- The answer (for /v1/openapi.json): OAPI `Response`, the fields the gateway sends. ----

const OutputMessage = z.object({
  type: z.literal("message"),
  id: z.string(),
  role: z.literal("assistant"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  content: z.array(
    z.union([
      z.object({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) }),
      z.object({ type: z.literal("refusal"), refusal: z.string() }),
    ]),
  ),
});

const OutputFunctionCall = z.object({
  type: z.literal("function_call"),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
  arguments: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
});

const OutputCustomToolCall = z.object({
  type: z.literal("custom_tool_call"),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  input: z.string(),
  status: z.enum(["in_progress", "completed", "incomplete"]),
});

const ResponseUsage = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number().int(),
  completed_at: z.number().int().nullable(),
  status: z.enum(["completed", "incomplete", "failed", "in_progress"]),
  model: z.string(),
  output: z.array(z.union([OutputMessage, OutputFunctionCall, OutputCustomToolCall])),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.object({ reason: z.enum(["max_output_tokens", "content_filter"]) }).nullable(),
  instructions: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  parallel_tool_calls: z.boolean(),
  temperature: z.number().nullable(),
  top_p: z.number().nullable(),
  tool_choice: ToolChoice,
  tools: z.array(ResponsesTool),
  text: z.object({ format: TextFormat }),
  reasoning: z.object({ effort: z.string().nullable(), summary: z.string().nullable() }),
  max_output_tokens: z.number().int().nullable(),
  previous_response_id: z.string().nullable(),
  store: z.boolean(),
  truncation: z.enum(["auto", "disabled"]),
  usage: ResponseUsage.nullable(),
});

export const DeletedResponse = z.object({ id: z.string(), object: z.literal("response"), deleted: z.literal(true) });
