/**
 * OpenAI Responses API wire fixtures (https://platform.openai.com/docs/api-reference/responses/object,
 * the recorded answers of vercel/ai packages/openai/src/__fixtures__/openai-*.json): a `response`
 * object, and its stream (`response.created` ... `response.completed`), for fakes of OpenAI's
 * own /v1/responses that the gateway calls natively (docs/responses.md).
 */
import type { Reply } from "./fake-upstream.js";

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export function responsesUsage(u: ResponsesUsage) {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.input_tokens + u.output_tokens,
  };
}

export const messageItem = (text: string) => ({
  id: "msg_67c9a8787f4c8190b49c858d4c1cf20c",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
});

export function responseObject(output: unknown[], usage: ResponsesUsage | null, extra: Record<string, unknown> = {}) {
  return {
    id: "resp_67c9a81b6a048190a9ee441c5755a4e8",
    object: "response",
    created_at: 1_741_269_019,
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "gpt-4o-mini-2024-07-18",
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: usage && responsesUsage(usage),
    user: null,
    metadata: {},
    ...extra,
  };
}

/** A JSON answer of /v1/responses. */
export const responsesAnswer = (output: unknown[], usage: ResponsesUsage | null, extra: Record<string, unknown> = {}): Reply => ({
  json: responseObject(output, usage, extra),
});

/** The stream of an answer holding `items` (each added and done, text deltas for a message), ending in response.completed with usage. */
export function responsesStream(items: Array<Record<string, any>>, usage: ResponsesUsage): Reply {
  const base = responseObject([], null);
  const events: Array<Record<string, unknown>> = [
    { type: "response.created", response: { ...base, status: "in_progress" } },
    { type: "response.in_progress", response: { ...base, status: "in_progress" } },
  ];
  items.forEach((item, i) => {
    events.push({ type: "response.output_item.added", output_index: i, item: { ...item, status: "in_progress" } });
    if (item.type === "message") {
      const text = item.content[0].text as string;
      events.push({ type: "response.output_text.delta", item_id: item.id, output_index: i, content_index: 0, delta: text, logprobs: [] });
      events.push({ type: "response.output_text.done", item_id: item.id, output_index: i, content_index: 0, text, logprobs: [] });
    }
    events.push({ type: "response.output_item.done", output_index: i, item });
  });
  events.push({ type: "response.completed", response: { ...base, status: "completed", output: items, usage: responsesUsage(usage) } });
  return { sse: events.map((data, n) => ({ event: data.type as string, data: { ...data, sequence_number: n } })) };
}
