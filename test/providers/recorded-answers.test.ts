/**
 * Real answers recorded from Anthropic, OpenAI and DeepSeek (test/fixtures/providers/README.md)
 * replayed by a local fake upstream: what the client gets (text, tool calls, usage, finish
 * reason) is checked against each recording's own content.
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { assemble, completion, jsonReply, recorded, recordedChunks, sseReply } from "./recorded.js";

const route = (id: string, provider: string) => ({ id, pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider, model: "m" }] });
const weather = [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { location: { type: "string" } } } } }];

describe("recorded answers", () => {
  const h = useGateway(
    (url) => ({
      // Tools are of the OpenAI superset (docs/openai-compat.md); answers are then checked against OpenAI's schema too.
      server: { compat: "openai" },
      providers: {
        anthropic: { baseUrl: url, apiKey: "sk-ant-recorded-0001" },
        openai: { baseUrl: `${url}/v1`, apiKey: "sk-openai-recorded-0001" },
        deepseek: { baseUrl: url, apiKey: "sk-deepseek-recorded-0001" },
        google: { baseUrl: url, apiKey: "AIza-recorded-0001" },
      },
      models: [route("anthropic/claude", "anthropic"), route("openai/gpt", "openai"), route("deepseek/chat", "deepseek"), route("google/gemini", "google")],
      retry: FAST_RETRY,
    }),
    { body: { messages: [{ role: "user", content: "Hi" }] } },
  );

  test("anthropic message: text blocks, end_turn is stop, usage counts cache reads and writes into the prompt", async () => {
    const rec = recorded("anthropic/anthropic-text.json");
    h.fake.queue(jsonReply("anthropic/anthropic-text.json"));
    const body = await completion(await h.post({ model: "anthropic/claude" }));
    const u = rec.usage;
    const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    expect(body.choices[0]).toMatchObject({ message: { content: rec.content[0].text }, finish_reason: "stop" });
    expect(body.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: u.output_tokens, total_tokens: prompt + u.output_tokens });
  });

  test("anthropic message with a tool_use of no input: the text, one call with arguments {}, finish tool_calls", async () => {
    const rec = recorded("anthropic/anthropic-tool-no-args.json");
    const tool = rec.content[1];
    h.fake.queue(jsonReply("anthropic/anthropic-tool-no-args.json"));
    const body = await completion(await h.post({ model: "anthropic/claude", tools: [{ type: "function", function: { name: tool.name } }] }));
    expect(body.choices[0].message.content).toBe(rec.content[0].text);
    expect(body.choices[0].message.tool_calls).toEqual([{ id: tool.id, type: "function", function: { name: tool.name, arguments: "{}" } }]);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.usage).toMatchObject({ prompt_tokens: rec.usage.input_tokens, completion_tokens: rec.usage.output_tokens });
  });

  test("anthropic stream (with a ping): the text deltas in order, usage from message_delta, finish stop", async () => {
    const events = recordedChunks("anthropic/anthropic-text.chunks.txt");
    const text = events.flatMap((e) => (e.delta?.type === "text_delta" ? [e.delta.text] : [])).join("");
    const last = events.find((e) => e.type === "message_delta").usage;
    h.fake.queue(sseReply("anthropic/anthropic-text.chunks.txt", "named"));
    const got = await assemble(await h.post({ model: "anthropic/claude", stream: true }));
    expect(got).toMatchObject({ text, finish: "stop", calls: [] });
    expect(got.usage).toMatchObject({ prompt_tokens: last.input_tokens, completion_tokens: last.output_tokens });
  });

  test("openai chat.completion: content, finish reason and usage as recorded", async () => {
    const rec = recorded("openai/openai-text.json");
    h.fake.queue(jsonReply("openai/openai-text.json"));
    const body = await completion(await h.post({ model: "openai/gpt" }));
    expect(body.choices[0]).toMatchObject({ message: { content: rec.choices[0].message.content }, finish_reason: rec.choices[0].finish_reason });
    expect(body.usage).toMatchObject({ prompt_tokens: rec.usage.prompt_tokens, completion_tokens: rec.usage.completion_tokens });
  });

  test("deepseek tool call: the call as recorded, reasoning left out of content, reasoning tokens kept", async () => {
    const rec = recorded("deepseek/deepseek-tool-call.json");
    const call = rec.choices[0].message.tool_calls[0];
    h.fake.queue(jsonReply("deepseek/deepseek-tool-call.json"));
    const body = await completion(await h.post({ model: "deepseek/chat", tools: weather }));
    expect(body.choices[0].message.tool_calls).toEqual([{ id: call.id, type: "function", function: call.function }]);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.usage).toMatchObject({
      prompt_tokens: rec.usage.prompt_tokens,
      completion_tokens: rec.usage.completion_tokens,
      completion_tokens_details: { reasoning_tokens: rec.usage.completion_tokens_details.reasoning_tokens },
    });
  });

  test("deepseek streamed tool call: the arguments fragments assemble to the recorded JSON; usage from the last chunk", async () => {
    const chunks = recordedChunks("deepseek/deepseek-tool-call.chunks.txt");
    const fragments = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    const args = fragments.map((t: any) => t.function.arguments).join("");
    h.fake.queue(sseReply("deepseek/deepseek-tool-call.chunks.txt", "done"));
    const got = await assemble(await h.post({ model: "deepseek/chat", tools: weather, stream: true }));
    expect(got.calls).toEqual([{ id: fragments[0].id, name: fragments[0].function.name, arguments: args }]);
    expect(JSON.parse(args)).toEqual({ location: "San Francisco" });
    expect(got).toMatchObject({ text: "", finish: "tool_calls" });
    expect(got.usage).toMatchObject({ prompt_tokens: chunks.at(-1).usage.prompt_tokens, completion_tokens: chunks.at(-1).usage.completion_tokens });
  });

  test("gemini functionCall: one tool call with the recorded args, STOP with calls is tool_calls, thoughts counted as output", async () => {
    const rec = recorded("google/google-tool-call.json");
    const u = rec.usageMetadata;
    h.fake.queue(jsonReply("google/google-tool-call.json"));
    const body = await completion(await h.post({ model: "google/gemini", tools: weather }));
    const fc = rec.candidates[0].content.parts[0].functionCall;
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: expect.any(String), type: "function", function: { name: fc.name, arguments: JSON.stringify(fc.args) } },
    ]);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.usage).toMatchObject({
      prompt_tokens: u.promptTokenCount,
      completion_tokens: u.candidatesTokenCount + u.thoughtsTokenCount,
      completion_tokens_details: { reasoning_tokens: u.thoughtsTokenCount },
    });
  });

  test("gemini stream (no [DONE]): the text parts in order, the last usageMetadata, finish stop", async () => {
    const chunks = recordedChunks("google/google-text.chunks.txt");
    const text = chunks.map((c) => c.candidates[0].content.parts.map((p: { text?: string }) => p.text ?? "").join("")).join("");
    const u = chunks.at(-1).usageMetadata;
    h.fake.queue(sseReply("google/google-text.chunks.txt", "bare"));
    const got = await assemble(await h.post({ model: "google/gemini", stream: true }));
    expect(got).toMatchObject({ text, finish: "stop", calls: [] });
    expect(got.usage).toMatchObject({ prompt_tokens: u.promptTokenCount, completion_tokens: u.candidatesTokenCount + u.thoughtsTokenCount });
  });
});
