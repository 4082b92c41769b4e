/**
 * Anthropic's Messages API request (POST /v1/messages, `anthropic-version: 2023-06-01`), as zod
 * schemas: the fields and content blocks docs/messages.md lists, each checked where the gateway
 * reads it. Objects are loose: a field the schema does not name (`context_management`,
 * `output_config`, `defer_loading`, a newer block type) is kept, because on a native route the
 * body travels to the provider unchanged; the translated path decides about each (translate.ts).
 */
import { z } from "zod";

const CacheControl = z.looseObject({ type: z.string() }).optional();

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string(), cache_control: CacheControl });

const ImageSource = z.union([
  z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal("url"), url: z.string() }),
  z.looseObject({ type: z.literal("file"), file_id: z.string() }),
]);
const ImageBlock = z.looseObject({ type: z.literal("image"), source: ImageSource, cache_control: CacheControl });

const DocumentBlock = z.looseObject({
  type: z.literal("document"),
  source: z.looseObject({ type: z.string() }),
  title: z.string().nullish(),
  context: z.string().nullish(),
  cache_control: CacheControl,
});

const ToolUseBlock = z.looseObject({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown(), cache_control: CacheControl });

const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([TextBlock, ImageBlock, DocumentBlock]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: CacheControl,
});

const ThinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() });
const RedactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });

const KNOWN_BLOCKS = ["text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking"];

/** A block type this schema does not name (server tool blocks, newer kinds): kept for the native path. */
const OtherBlock = z.looseObject({
  type: z.string().refine((t) => !KNOWN_BLOCKS.includes(t), "Invalid block"),
});

export const ContentBlock = z.union([TextBlock, ImageBlock, DocumentBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock, RedactedThinkingBlock, OtherBlock]);
export type ContentBlock = z.infer<typeof ContentBlock>;

const MessageParam = z.looseObject({
  // `system` inside messages: Claude Code sends one (docs/messages.md).
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string(), z.array(ContentBlock)]),
});

/** A custom tool (`input_schema`), or a server tool with a `type` of Anthropic's (`web_search_20250305`, ...). */
const ToolParam = z.union([
  z.looseObject({
    type: z.literal("custom").optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
    cache_control: CacheControl,
  }),
  z.looseObject({ type: z.string().refine((t) => t !== "custom", "Invalid tool"), name: z.string() }),
]);
export type ToolParam = z.infer<typeof ToolParam>;

const ToolChoice = z.union([
  z.looseObject({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("none") }),
]);

const Thinking = z.union([
  z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1) }),
  z.looseObject({ type: z.literal("adaptive") }),
  z.looseObject({ type: z.literal("disabled") }),
]);

export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(MessageParam).min(1),
  max_tokens: z.number().int().min(1),
  system: z.union([z.string(), z.array(TextBlock)]).optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: z.array(ToolParam).optional(),
  tool_choice: ToolChoice.optional(),
  thinking: Thinking.optional(),
  output_config: z.looseObject({ effort: z.string().optional(), format: z.looseObject({ type: z.string() }).nullish() }).optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** POST /v1/messages/count_tokens: the same body without the output fields. */
export const CountTokensRequest = MessagesRequest.omit({
  max_tokens: true,
  stream: true,
  stop_sequences: true,
  temperature: true,
  top_p: true,
  top_k: true,
  metadata: true,
});
export type CountTokensRequest = z.infer<typeof CountTokensRequest>;
