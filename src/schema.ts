/**
 * The wire format of api.md as zod schemas. The same schemas validate requests and generate
 * GET /v1/openapi.json, so the two cannot drift. The gateway's internal language is this
 * format: adapters translate from it and back to it.
 */
import { z } from "zod";

export const MAX_STOP_SEQUENCES = 4;
export const MAX_N = 128;

export const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const ChatMessage = z.strictObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

const requestShape = {
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  stream: z.boolean().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(MAX_STOP_SEQUENCES)]).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  n: z.number().int().min(1).max(MAX_N).optional(),
  seed: z.number().int().optional(),
  // Not in api.md; contract.md §4 admits it because LangChain JS sends it on every stream.
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).optional(),
};

/** A `tool` message answers a call: without its id no provider can pair it. */
function toolCallIds(body: { messages: ChatMessage[] }, ctx: z.core.$RefinementCtx): void {
  body.messages.forEach((m, i) => {
    if (m.role === "tool" && !m.tool_call_id) ctx.addIssue({ code: "custom", path: ["messages", i, "tool_call_id"], message: "Required" });
  });
}

export const ChatRequest = z.strictObject(requestShape).superRefine(toolCallIds);
export type ChatRequest = z.infer<typeof ChatRequest>;

/** `server.compat: passthrough`: unknown top-level fields are accepted and dropped. */
export const ChatRequestLoose = z.object(requestShape).superRefine(toolCallIds);

export const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});
export type Usage = z.infer<typeof Usage>;

export const FinishReason = z.enum(["stop", "length", "tool_calls"]).nullable();
export type FinishReason = z.infer<typeof FinishReason>;

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.object({ index: z.number().int(), message: ChatMessage, finish_reason: FinishReason })),
  usage: Usage,
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

export const ChatChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.object({ index: z.number().int(), delta: ChatMessage.partial(), finish_reason: FinishReason })),
  usage: Usage.optional(),
});

export const ModelEntry = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
  capabilities: z.object({ chat: z.boolean(), completions: z.boolean(), embeddings: z.boolean() }),
  pricing: z.object({ prompt: z.string(), completion: z.string() }).optional(),
  context_length: z.number().int().optional(),
});

export const ModelList = z.object({ object: z.literal("list"), data: z.array(ModelEntry) });

export const ErrorBody = z.object({
  error: z.strictObject({
    message: z.string(),
    type: z.enum(["invalid_request_error", "authentication_error", "insufficient_credits", "not_found", "rate_limit_error", "upstream_error"]),
    code: z.string().nullable(),
    request_id: z.string(),
  }),
});
