/**
 * A complete 200 answer is never asked for again (docs/limits.md, "A complete answer"). Recorded
 * real Anthropic streams with server tool blocks (code execution, web fetch; test/fixtures/providers/)
 * are answered with their text after one upstream call; an answer that arrived whole but breaks
 * the adapter's schema is a 502 after one call even with a second endpoint, and leaves the
 * circuit closed (one key's unusable answer opens nothing, even at a threshold of 1).
 */
import { describe, expect, test } from "vitest";
import { FAST_RETRY, useGateway } from "../helpers/gateway.js";
import { expectError } from "../helpers/http.js";
import { assemble, recorded, recordedChunks, sseReply } from "./recorded.js";

const pricing = { prompt: "1", completion: "2" };

/** The text the recorded stream's text blocks carry, in order. */
const textOf = (file: string): string =>
  recordedChunks(file)
    .map((e) =>
      e.type === "content_block_start" && e.content_block.type === "text" ? e.content_block.text : e.delta?.type === "text_delta" ? e.delta.text : "",
    )
    .join("");

describe("a complete answer is used or refused, never asked again", () => {
  const h = useGateway(
    (url) => ({
      providers: {
        first: { plugin: "anthropic", baseUrl: url, apiKey: "sk-ant-first-0001" },
        second: { plugin: "anthropic", baseUrl: url, apiKey: "sk-ant-second-0002" },
      },
      models: [
        {
          id: "x/claude",
          order: "fixed",
          pricing,
          endpoints: [
            { provider: "first", model: "m" },
            { provider: "second", model: "m" },
          ],
        },
      ],
      retry: FAST_RETRY,
      health: { failureThreshold: 1 },
    }),
    { body: { model: "x/claude", messages: [{ role: "user", content: "Hi" }] } },
  );
  const keysSeen = () => h.fake.requests.map((r) => r.headers["x-api-key"]);

  test.each([
    ["anthropic/anthropic-code-execution-20260120-prompt-cache.1.chunks.txt", 6 + 6289 + 3337, 198],
    ["anthropic/anthropic-web-fetch-tool.1.chunks.txt", 4230, 446],
  ])("%s: 200 with its text, no tool call, its usage, one upstream call", async (file, prompt, completion) => {
    h.fake.queue(sseReply(file, "named"));
    const out = await assemble(await h.post({ stream: true, stream_options: { include_usage: true } }));
    expect(out.text).toBe(textOf(file));
    expect(out.text.length).toBeGreaterThan(20);
    expect(out.calls).toEqual([]);
    expect(out.finish).toBe("stop");
    expect(out.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion });
    expect(keysSeen()).toEqual(["sk-ant-first-0001"]);
  });

  const brokenMessage = () => {
    const json = recorded("anthropic/anthropic-text.json");
    json.content = { text: "not a list" };
    return { json };
  };
  const brokenStream = () => {
    const events = recordedChunks("anthropic/anthropic-text.chunks.txt");
    events.find((e) => e.type === "content_block_delta").delta.text = 7;
    return { sse: events.map((data) => ({ event: data.type, data })) };
  };

  test.each([
    ["message", false, brokenMessage],
    ["stream", true, brokenStream],
  ] as const)("an unusable complete %s: 502 after one call with a second endpoint; the next request is served by the first", async (_kind, stream, reply) => {
    h.fake.queue(reply());
    await expectError(await h.post({ stream }), 502, "upstream_error", "upstream_invalid_response");
    expect(keysSeen()).toEqual(["sk-ant-first-0001"]);
    const health = (await (await fetch(`${h.gw.url}/v1/health/providers`)).json()) as {
      providers: Array<{ id: string; circuit: string; last_error: unknown }>;
    };
    expect(health.providers.find((p) => p.id === "first")).toMatchObject({ circuit: "closed", last_error: { reason: "invalid_answer" } });
    h.fake.queue({ json: recorded("anthropic/anthropic-text.json") });
    expect((await h.post()).status).toBe(200);
    expect(keysSeen()).toEqual(["sk-ant-first-0001", "sk-ant-first-0001"]);
  });
});
