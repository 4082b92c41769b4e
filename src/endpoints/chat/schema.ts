/**
 * The chat completion and its chunk as this endpoint writes them (endpoints/chat/render.ts,
 * stream.ts), for GET /v1/openapi.json: the strict form, and under `openai` what OpenAI's
 * published schema also requires.
 */
import { z } from "zod";
import { FinishReason, ToolCall, Usage } from "../../core/chat-request.js";

const AssistantMessage = z.object({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall).optional(),
});

/** `cost`: the charge as a USD decimal, when the request asked `usage: {include: true}` (docs/routing.md). */
const UsageWithCost = Usage.extend({ cost: z.string().optional() });

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.object({ index: z.number().int(), message: AssistantMessage, finish_reason: FinishReason })),
  usage: UsageWithCost,
});

/** A streamed tool-call fragment: `index` always, `id`, `type` and `name` on a call's first fragment. */
const ToolCallChunk = z.object({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});

export const ChatChunk = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({ role: z.literal("assistant").optional(), content: z.string().nullable().optional(), tool_calls: z.array(ToolCallChunk).optional() }),
      finish_reason: FinishReason,
    }),
  ),
  usage: UsageWithCost.optional(),
});

/** Under `openai` the answer also carries what OpenAI's published schema requires. */
const Logprobs = z.object({ content: z.array(z.unknown()).nullable(), refusal: z.array(z.unknown()).nullable().optional() }).nullable();
const OpenAIFinish = z.enum(["stop", "length", "tool_calls", "content_filter"]).nullable();

export const OpenAIChatCompletion = ChatCompletion.extend({
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: AssistantMessage.extend({ refusal: z.string().nullable() }),
      finish_reason: OpenAIFinish,
      logprobs: Logprobs,
    }),
  ),
});

export const OpenAIChatChunk = ChatChunk.extend({
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: ChatChunk.shape.choices.element.shape.delta.extend({ refusal: z.string().nullable().optional() }),
      finish_reason: OpenAIFinish,
      logprobs: Logprobs.optional(),
    }),
  ),
});
