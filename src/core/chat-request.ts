/**
 * The wire format as zod schemas. The same schemas validate requests and generate
 * GET /v1/openapi.json, so the two cannot drift. Two request forms (docs/openai-compat.md):
 * `strict` is docs/http.md exactly (plus `stream_options`); `openai` is the OpenAI request
 * superset (tools, response_format, content parts, ...). The gateway's internal language is
 * the superset: a strict body is a superset body that happens to use fewer fields, and
 * adapters translate from it. See docs/openai-compat.md.
 */
import { z } from "zod";

const MAX_STOP_SEQUENCES = 4;
const MAX_N = 128;

export const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** docs/http.md's message: content is a string. */
const StrictMessage = z.strictObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});

/**
 * Anthropic's prompt-caching mark as clients of OpenAI-format APIs send it (opencode on a
 * `claude` model): forwarded as the block's `cache_control` to Anthropic, dropped for every
 * other provider (docs/openai-compat.md "cache_control").
 */
const CacheControl = z.strictObject({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() });
export type CacheControl = z.infer<typeof CacheControl>;

const TextPart = z.strictObject({ type: z.literal("text"), text: z.string(), cache_control: CacheControl.optional() });
export const ImagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({
    url: z.string().regex(/^(https:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i, "Expected an https URL or a data:image/...;base64 URL"),
    detail: z.enum(["auto", "low", "high"]).optional(),
  }),
  cache_control: CacheControl.optional(),
});
export const ContentPart = z.discriminatedUnion("type", [TextPart, ImagePart]);
export type ContentPart = z.infer<typeof ContentPart>;

/** The superset's message: `developer`, content parts, and what clients echo back on assistant turns. */
export const ChatMessage = z.strictObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z
    .union([z.string(), z.array(ContentPart)])
    .nullable()
    .optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall.extend({ cache_control: CacheControl.optional() })).optional(),
  tool_call_id: z.string().optional(),
  refusal: z.string().nullable().optional(),
  annotations: z.array(z.unknown()).optional(),
  audio: z.null().optional(),
  cache_control: CacheControl.optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/** Tool names as OpenAI accepts them (and so every provider we translate to). */
export const ToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "Expected 1-64 letters, digits, '_' or '-'");

/** A function tool's fields: nested under `function` in chat, flat in the Responses API. */
export const functionFields = {
  name: ToolName,
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().optional(),
};

export const Tool = z.strictObject({ type: z.literal("function"), function: z.strictObject(functionFields) });
export type Tool = z.infer<typeof Tool>;

const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: ToolName }) }),
]);
type ToolChoice = z.infer<typeof ToolChoice>;

export const ResponseFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({
    type: z.literal("json_schema"),
    json_schema: z.strictObject({
      name: ToolName,
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().optional(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormat>;

const strictShape = {
  model: z.string().min(1),
  messages: z.array(StrictMessage).min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  // A gateway extension under every compat mode: names the conversation for prompt-cache affinity (docs/limits.md).
  prompt_cache_key: z.string().optional(),
  max_tokens: z.number().int().min(1).optional(),
  stream: z.boolean().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(MAX_STOP_SEQUENCES)]).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  n: z.number().int().min(1).max(MAX_N).optional(),
  seed: z.number().int().optional(),
  // Not in docs/http.md; docs/http.md admits it because LangChain JS sends it on every stream.
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).optional(),
};

const openaiShape = {
  ...strictShape,
  messages: z.array(ChatMessage).min(1),
  tools: z.array(Tool).max(128).optional(),
  tool_choice: ToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: ResponseFormat.optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  user: z.string().optional(),
  // OpenAI's newer identifiers (cache routing, abuse monitoring): forwarded where the API has them.
  safety_identifier: z.string().optional(),
  verbosity: z.enum(["low", "medium", "high"]).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  reasoning_effort: z.enum(["minimal", "low", "medium", "high"]).optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().min(0).max(20).optional(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).optional(),
  service_tier: z.enum(["auto", "default", "flex", "scale", "priority"]).optional(),
  store: z.boolean().optional(),
  modalities: z.array(z.literal("text")).optional(),
  prediction: z.strictObject({ type: z.literal("content"), content: z.union([z.string(), z.array(TextPart)]) }).optional(),
  web_search_options: z
    .strictObject({
      search_context_size: z.enum(["low", "medium", "high"]).optional(),
      user_location: z.unknown().optional(),
    })
    .optional(),
};

type Refinable = {
  messages: Array<{ role: string; tool_call_id?: string }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  top_logprobs?: number;
  logprobs?: boolean;
};

/** Rules across fields: a tool message names its call; one output limit; top_logprobs needs logprobs. */
function crossField(body: Refinable, ctx: z.core.$RefinementCtx): void {
  body.messages.forEach((m, i) => {
    if (m.role === "tool" && !m.tool_call_id) ctx.addIssue({ code: "custom", path: ["messages", i, "tool_call_id"], message: "Required" });
  });
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) {
    ctx.addIssue({ code: "custom", path: ["max_completion_tokens"], message: "Send max_tokens or max_completion_tokens, not both" });
  }
  if (body.top_logprobs !== undefined && body.logprobs !== true) {
    ctx.addIssue({ code: "custom", path: ["top_logprobs"], message: "Requires logprobs: true" });
  }
}

/** `server.compat: strict` (the default): docs/http.md exactly. */
export const StrictChatRequest = z.strictObject(strictShape).superRefine(crossField);
/** `server.compat: openai`: the superset, strict inside (unknown fields are still a 400). */
export const OpenAIChatRequest = z.strictObject(openaiShape).superRefine(crossField);
/** `server.compat: passthrough`: the superset; unknown top-level fields are accepted and dropped. */
export const LooseChatRequest = z.object(openaiShape).superRefine(crossField);

/** The internal request form every adapter reads. */
export type ChatRequest = z.infer<typeof OpenAIChatRequest>;

export const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  /** Added when the provider reported cached prompt tokens (the OpenAI convention, docs/billing.md); inside prompt_tokens. */
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }).optional(),
  /** Added when the provider reported reasoning tokens; inside completion_tokens. */
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }).optional(),
});
/**
 * Usage inside the gateway: the answer's usage plus what is billed but not shown (prompt
 * tokens written to the provider's cache: Anthropic cache_creation_input_tokens, Bedrock
 * cacheWriteInputTokens; inside prompt_tokens). endpoints/chat/usage-out.ts renders the public part.
 */
export type Usage = z.infer<typeof Usage> & {
  cache_write_tokens?: number;
  /** Server-side tool calls the provider reported and bills per call, by name (`web_search: 2`), billed at `pricing.tool_calls` (docs/billing.md). */
  tool_calls?: ToolCalls;
  /** The counts as reported (or, estimated, as counted) when a bound cut them (billing/usage-check.ts): the ledger row keeps both. */
  unbounded?: UnboundedCounts;
};

/** Per-call tool counts by name. */
export type ToolCalls = Record<string, number>;

export interface UnboundedCounts {
  prompt_tokens: number;
  completion_tokens: number;
  tool_calls?: ToolCalls;
}

/** docs/http.md's closed set; `content_filter` exists inside and is shown only under `openai`. */
export const FinishReason = z.enum(["stop", "length", "tool_calls"]).nullable();
export type FinishReason = z.infer<typeof FinishReason> | "content_filter";
