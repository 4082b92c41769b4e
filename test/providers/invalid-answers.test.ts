/**
 * An answer that breaks the adapter's schema of the fields it reads (providers/<name>/answer-schema.ts)
 * is the documented 502 upstream_invalid_response (docs/http.md, docs/limits.md). The client's
 * message stays generic; the log names the provider instance, the adapter and the failing path.
 * Each case breaks one field of a real recorded answer (test/fixtures/providers/); Bedrock's,
 * for want of a recording, is the Converse reference's example.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import type { Reply } from "../helpers/fake-upstream.js";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { expectError } from "../helpers/http.js";
import { recorded, recordedChunks } from "./recorded.js";

const PROVIDERS = ["anthropic", "anthropic-stream", "openai", "deepseek", "deepseek-stream", "google", "bedrock"] as const;
const plugin = (id: string) => id.replace(/-stream$/, "");
const route = (id: string) => ({ id: `x/${id}`, pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: id, model: "m" }] });

/** A copy of a recorded answer with one field changed. */
function broken(file: string, change: (json: any) => void): Reply {
  const json = recorded(file);
  change(json);
  return { json };
}

/** A recorded stream whose event `at` is changed; events keep their names. */
function brokenStream(file: string, at: (e: any) => boolean, change: (e: any) => void, named: boolean): Reply {
  const events = recordedChunks(file);
  change(events.find(at));
  return { sse: events.map((data) => (named ? { event: data.type, data } : { data })), done: !named };
}

/** The gateway's log once it holds a line about `provider` (lines are written within a second). */
async function logLine(file: string | undefined, provider: string): Promise<string> {
  expect(file, "the suite runs with a log folder (test/global-setup.ts)").toBeDefined();
  for (let i = 0; i < 60; i++) {
    const line = readFileSync(file!, "utf8")
      .split("\n")
      .find((l) => l.includes(`provider ${provider} sent an answer`));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no log line names provider ${provider}`);
}

describe("answers that break the adapter's schema", () => {
  const h = useGateway(
    (url) => ({
      providers: {
        anthropic: { baseUrl: url, apiKey: "sk-ant-invalid-0001" },
        "anthropic-stream": { plugin: "anthropic", baseUrl: url, apiKey: "sk-ant-invalid-0002" },
        openai: { baseUrl: `${url}/v1`, apiKey: "sk-openai-invalid-0001" },
        deepseek: { baseUrl: url, apiKey: "sk-deepseek-invalid-0002" },
        "deepseek-stream": { plugin: "deepseek", baseUrl: url, apiKey: "sk-deepseek-invalid-0001" },
        google: { baseUrl: url, apiKey: "AIza-invalid-0001" },
        bedrock: { baseUrl: url, apiKey: "AKIAINVALIDEXAMPLE01:sk-bedrock-invalid-secret-0001", region: "us-east-1" },
      },
      models: PROVIDERS.map(route),
      retry: FAST_RETRY,
    }),
    { body: { messages: [{ role: "user", content: "Hi" }] } },
  );

  test.each([
    ["anthropic", false, "anthropic message: usage.input_tokens", broken("anthropic/anthropic-text.json", (m) => (m.usage.input_tokens = "x"))],
    ["openai", false, "openai chat.completion: choices", broken("openai/openai-text.json", (m) => (m.choices = { 0: m.choices[0] }))],
    // DeepSeek's own reading (finish reasons) runs first: it must leave a body not in the format to the schema.
    ["deepseek", false, "deepseek chat.completion: choices", broken("deepseek/deepseek-tool-call.json", (m) => (m.choices = { 0: m.choices[0] }))],
    [
      "anthropic-stream",
      true,
      "anthropic stream event: delta.text",
      brokenStream(
        "anthropic/anthropic-text.chunks.txt",
        (e) => e.type === "content_block_delta",
        (e) => (e.delta.text = 7),
        true,
      ),
    ],
    [
      "deepseek-stream",
      true,
      "deepseek chat.completion.chunk: choices.0.delta.tool_calls.0.function.arguments",
      brokenStream(
        "deepseek/deepseek-tool-call.chunks.txt",
        (e) => e.choices[0].delta.tool_calls,
        (e) => (e.choices[0].delta.tool_calls[0].function.arguments = {}),
        false,
      ),
    ],
    [
      "google",
      false,
      "google GenerateContentResponse: usageMetadata.promptTokenCount",
      broken("google/google-tool-call.json", (r) => (r.usageMetadata.promptTokenCount = "x")),
    ],
    // A Converse answer as Bedrock's reference shows it, with content not an array.
    [
      "bedrock",
      false,
      "bedrock converse: output.message.content",
      { json: { output: { message: { role: "assistant", content: { text: "Hi" } } }, stopReason: "end_turn", usage: { inputTokens: 3, outputTokens: 1 } } },
    ],
  ] as const)("%s (stream: %s): 502 upstream_invalid_response; the log says %s", async (provider, stream, where, reply) => {
    h.fake.queue(reply);
    const err = await expectError(await h.post({ model: `x/${provider}`, stream }), 502, "upstream_error", "upstream_invalid_response");
    expect(err.message).not.toMatch(new RegExp(`${plugin(provider)}|usage|choices|delta`));
    const line = await logLine(h.gw.logFile, provider);
    expect(line).toContain(where);
    expect(line).not.toMatch(/sk-/);
  });

  test("an event type the adapter does not know passes: the recorded stream with one added still answers", async () => {
    const events = recordedChunks("anthropic/anthropic-text.chunks.txt");
    events.splice(2, 0, { type: "content_block_delta_v2", index: 0, anything: [1] }, { type: "ping" });
    h.fake.queue({ sse: events.map((data) => ({ event: data.type, data })), done: false });
    const res = await h.post({ model: "x/anthropic", stream: true });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("data: [DONE]");
  });
});
