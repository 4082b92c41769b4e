/** Strict request validation: each rule of docs/http.md's ChatCompletionRequest, `<field>: <problem>`. */
import { expect, test } from "vitest";
import { openaiConfig, startGateway, useGateway } from "./helpers/gateway.js";
import { bearer, expectError, post } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const base = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

const h = useGateway((fakeUrl) => openaiConfig(fakeUrl), { credits: "10", fallback: () => completion("ok") });

test.each([
  ["model missing", { messages: base.messages }, "model: Required"],
  ["messages missing", { model: base.model }, "messages: Required"],
  ["messages empty", { ...base, messages: [] }, "messages: Array must contain at least 1 element(s)"],
  ["unknown top-level field", { ...base, foo: 1 }, "foo: Unrecognized key"],
  ["unknown message field", { ...base, messages: [{ role: "user", content: "x", extra: true }] }, "messages.0.extra: Unrecognized key"],
  ["bad role", { ...base, messages: [{ role: "robot", content: "x" }] }, 'messages.0.role: Invalid value. Expected "system" | "user" | "assistant" | "tool"'],
  ["role missing", { ...base, messages: [{ content: "x" }] }, "messages.0.role: Required"],
  ["content not a string", { ...base, messages: [{ role: "user", content: 5 }] }, "messages.0.content: Expected string, received number"],
  ["temperature > 2", { ...base, temperature: 2.5 }, "temperature: Number must be less than or equal to 2"],
  ["temperature < 0", { ...base, temperature: -0.1 }, "temperature: Number must be greater than or equal to 0"],
  ["top_p > 1", { ...base, top_p: 1.5 }, "top_p: Number must be less than or equal to 1"],
  ["max_tokens 0", { ...base, max_tokens: 0 }, "max_tokens: Number must be greater than or equal to 1"],
  ["max_tokens not an integer", { ...base, max_tokens: 1.5 }, "max_tokens: Expected int, received number"],
  ["stream not a boolean", { ...base, stream: "yes" }, "stream: Expected boolean, received string"],
  ["too many stop sequences", { ...base, stop: ["a", "b", "c", "d", "e"] }, "stop: Expected a string or an array of strings"],
  ["frequency_penalty > 2", { ...base, frequency_penalty: 3 }, "frequency_penalty: Number must be less than or equal to 2"],
  ["presence_penalty < -2", { ...base, presence_penalty: -3 }, "presence_penalty: Number must be greater than or equal to -2"],
  ["n 0", { ...base, n: 0 }, "n: Number must be greater than or equal to 1"],
  ["seed not an integer", { ...base, seed: 1.2 }, "seed: Expected int, received number"],
  [
    "tool call without function",
    { ...base, messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function" }] }] },
    "messages.0.tool_calls.0.function: Required",
  ],
  [
    "tool call of another type",
    { ...base, messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "code", function: { name: "f", arguments: "{}" } }] }] },
    'messages.0.tool_calls.0.type: Invalid value. Expected "function"',
  ],
  ["tool message without tool_call_id", { ...base, messages: [{ role: "tool", content: "x" }] }, "messages.0.tool_call_id: Required"],
  ["stream_options strict inside", { ...base, stream: true, stream_options: { include_usage: true, x: 1 } }, "stream_options.x: Unrecognized key"],
  ["body not an object", [1, 2], "body: Expected object, received array"],
])("%s -> 400 naming the field", async (_name, body, message) => {
  const e = await expectError(await h.post(body), 400, "invalid_request_error", null);
  expect(e.message).toBe(message);
  expect(h.fake.requests).toHaveLength(0);
});

test("a valid request with every field is accepted, stream_options included", async () => {
  const res = await h.post({
    ...base,
    temperature: 2,
    top_p: 0,
    max_tokens: 5,
    stream: false,
    stop: ["x", "y", "z", "w"],
    frequency_penalty: -2,
    presence_penalty: 2,
    n: 1,
    seed: 42,
    messages: [
      { role: "system", content: "s" },
      { role: "user", content: "u", name: "ann" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "r" },
    ],
  });
  expect(res.status).toBe(200);
  const sent = h.fake.requests.at(-1)!.body;
  expect(sent).toMatchObject({
    model: "gpt-4o-mini",
    temperature: 2,
    top_p: 0,
    max_completion_tokens: 5,
    seed: 42,
    frequency_penalty: -2,
    presence_penalty: 2,
  });
});

test("server.compat passthrough takes the OpenAI superset and drops unknown top-level fields", async () => {
  const loose = await startGateway(openaiConfig(h.fake.url, { server: { compat: "passthrough" } }));
  try {
    const k = await loose.createKey();
    await loose.addCredits("1");
    h.fake.queue(completion("ok"));
    const res = await post(loose.url, "/v1/chat/completions", { ...base, logprobs: true, user: "u1", some_vendor_field: 1 }, bearer(k));
    expect(res.status).toBe(200);
    expect(h.fake.requests.at(-1)!.body).not.toHaveProperty("some_vendor_field");
    expect(h.fake.requests.at(-1)!.body).toMatchObject({ logprobs: true, user: "u1" });
  } finally {
    await loose.close();
  }
});
