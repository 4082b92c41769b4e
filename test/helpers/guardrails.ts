/**
 * The guardrail suites' gateway (test/guardrails-*.test.ts): one fake upstream speaking each
 * API by path (OpenAI chat, embeddings and Responses, Anthropic Messages, Google
 * generateContent), an OpenAI, an Anthropic and a Google model, and the five model endpoints
 * called in their own wire format.
 */
import type { Recorded, Reply } from "./fake-upstream.js";
import { FAST_RETRY } from "./gateway.js";
import { completion } from "./openai-wire.js";
import { message, textBlock } from "../providers/anthropic.fixture.js";
import { candidate, response } from "../providers/google.fixture.js";
import { messageItem, responsesAnswer } from "./responses-wire.js";

export function guardedConfig(fakeUrl: string, secrets: Record<string, unknown>) {
  return {
    providers: {
      openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-upstream-guard-0000" },
      anthropic: { baseUrl: fakeUrl, apiKey: "ant-upstream-guard-0000" },
      google: { baseUrl: fakeUrl, apiKey: "g-upstream-guard-0000" },
    },
    models: [
      { id: "openai/gpt-4o-mini", pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] },
      { id: "anthropic/claude-sonnet-4", pricing: { prompt: "3", completion: "15" }, endpoints: [{ provider: "anthropic", model: "claude-up" }] },
      { id: "google/gemini-2.5-flash", pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "google", model: "gemini-up" }] },
      {
        id: "openai/text-embedding-3-small",
        kind: "embeddings",
        pricing: { prompt: "1", completion: "0" },
        endpoints: [{ provider: "openai", model: "te3s" }],
      },
    ],
    retry: FAST_RETRY,
    guardrails: { secrets },
  };
}

/** A plain answer to whatever API the path names, with `text` as the answer's text. */
export function answerFor(req: Recorded, text = "all fine"): Reply {
  if (req.path.includes("/embeddings")) {
    const inputs: unknown[] = Array.isArray(req.body.input) ? req.body.input : [req.body.input];
    const data = inputs.map((_, index) => ({ object: "embedding", index, embedding: [0.1, 0.2] }));
    return { json: { object: "list", data, model: "te3s", usage: { prompt_tokens: 3, total_tokens: 3 } } };
  }
  if (req.path.includes("/count_tokens")) return { json: { input_tokens: 5 } };
  if (req.path.includes(":countTokens")) return { json: { totalTokens: 5 } };
  if (req.path.includes("/v1/responses")) return responsesAnswer([messageItem(text)], { input_tokens: 5, output_tokens: 3 });
  if (req.path.includes("/v1/chat/completions")) return completion(text);
  if (req.path.includes("/v1/messages")) return message([textBlock(text)], { input_tokens: 5, output_tokens: 3 });
  if (req.path.includes(":generateContent")) return { json: response([candidate([{ text }], "STOP")], { promptTokenCount: 5, candidatesTokenCount: 3 }) };
  return { status: 404, json: { error: "unexpected path" } };
}

export interface Call {
  endpoint: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** Where the secret sits, as the 400 names it. */
  where: string;
}

/** A request to each of the five endpoints with `secret` in one of its texts. */
export function callsWith(secret: string, key: string): Call[] {
  const bearer = { authorization: `Bearer ${key}` };
  return [
    {
      endpoint: "chat",
      path: "/v1/chat/completions",
      headers: bearer,
      body: {
        model: "openai/gpt-4o-mini",
        messages: [
          { role: "user", content: "hi" },
          { role: "user", content: `my .env:\n${secret}\n` },
        ],
      },
      where: "messages.1.content",
    },
    {
      endpoint: "chat tool result",
      path: "/v1/chat/completions",
      headers: bearer,
      body: {
        model: "openai/gpt-4o-mini",
        messages: [
          { role: "user", content: "read it" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":".env"}' } }] },
          { role: "tool", tool_call_id: "c1", content: `KEY=${secret}` },
        ],
      },
      where: "messages.2.content",
    },
    {
      endpoint: "responses",
      path: "/v1/responses",
      headers: bearer,
      body: { model: "openai/gpt-4o-mini", input: [{ role: "user", content: [{ type: "input_text", text: `see ${secret}` }] }] },
      where: "input.0.content.0.text",
    },
    {
      endpoint: "embeddings",
      path: "/v1/embeddings",
      headers: bearer,
      body: { model: "openai/text-embedding-3-small", input: ["fine", `leaked ${secret}`] },
      where: "input.1",
    },
    {
      endpoint: "messages",
      path: "/v1/messages",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: {
        model: "anthropic/claude-sonnet-4",
        max_tokens: 100,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "text", text: secret },
            ],
          },
        ],
      },
      where: "messages.0.content.1.text",
    },
    {
      endpoint: "gemini",
      path: "/v1beta/models/google/gemini-2.5-flash:generateContent",
      headers: { "x-goog-api-key": key },
      body: { contents: [{ role: "user", parts: [{ text: "hello" }, { text: `cat ~/.aws/credentials -> ${secret}` }] }] },
      where: "contents.0.parts.1.text",
    },
    {
      endpoint: "messages count_tokens",
      path: "/v1/messages/count_tokens",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: {
        model: "anthropic/claude-sonnet-4",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "count" },
              { type: "text", text: secret },
            ],
          },
        ],
      },
      where: "messages.0.content.1.text",
    },
    {
      endpoint: "gemini countTokens",
      path: "/v1beta/models/google/gemini-2.5-flash:countTokens",
      headers: { "x-goog-api-key": key },
      body: { contents: [{ role: "user", parts: [{ text: "count" }, { text: secret }] }] },
      where: "contents.0.parts.1.text",
    },
  ];
}
