/**
 * One conformance suite for every provider adapter. A provider contributes a fixture: its
 * config entry, replies in its real wire format, and a reader that turns what its fake
 * upstream received back into a neutral view. The suite then drives the gateway with the
 * official OpenAI client and checks both sides.
 */
import { describe, expect, test } from "vitest";
import type { Recorded, Reply } from "./fake-upstream.js";
import { FAST_RETRY, useGateway } from "./gateway.js";

export interface Tokens {
  prompt: number;
  completion: number;
}
export interface Call {
  id: string;
  name: string;
  arguments: string;
}
export type Finish = "stop" | "length" | "tool_calls";

/** What the upstream was asked, in neutral terms. */
export interface SeenRequest {
  path: string;
  /** The credential as the provider carries it (bearer token, x-api-key, ...), or a signature marker. */
  auth: string | undefined;
  model: string | undefined;
  system: string | null;
  messages: Array<{ role: "user" | "assistant" | "tool"; text?: string; toolCalls?: Call[]; toolResult?: { id: string; text: string } }>;
  stop?: string[];
  maxTokens?: number;
  temperature?: number;
  stream: boolean;
}

export interface ProviderFixture {
  plugin: string;
  /** The `providers:` entry pointing the plugin at the fake (baseUrl per the provider's SDK convention). */
  provider(fakeUrl: string, apiKey: string): Record<string, unknown>;
  upstreamModel: string;
  text(text: string, usage: Tokens, finish?: Finish): Reply;
  stream(pieces: string[], usage: Tokens, finish?: Finish): Reply;
  toolCall(call: Call, usage: Tokens): Reply;
  streamToolCall(call: Call, usage: Tokens): Reply;
  /** The provider's real error body for a status. */
  error(status: number): Reply;
  seen(req: Recorded): SeenRequest;
  /** A unique string of the provider's error bodies, which must never reach the client. */
  errorMarker: string;
}

const MODEL = "test/model";
const UPSTREAM_KEY = "sk-upstream-conformance-9f3a";
const usage = { prompt: 31, completion: 7 };
const expectedUsage = { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38 };

export function describeProvider(fixture: ProviderFixture): void {
  describe(`provider ${fixture.plugin}`, () => {
    const h = useGateway((fakeUrl) => ({
      providers: { [fixture.plugin]: fixture.provider(fakeUrl, UPSTREAM_KEY) },
      models: [
        { id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: fixture.plugin, model: fixture.upstreamModel }] },
      ],
      retry: FAST_RETRY,
    }));

    const chat = (body: Record<string, unknown>) => h.gw.client(h.key).chat.completions.create({ model: MODEL, ...body } as never) as Promise<any>;
    const last = () => fixture.seen(h.fake.requests.at(-1)!);

    test("plain text: content, finish reason, usage, auth and model upstream", async () => {
      h.fake.queue(fixture.text("Hello from upstream", usage));
      const r = await chat({ messages: [{ role: "user", content: "Hi" }] });
      expect(r.choices[0].message.content).toBe("Hello from upstream");
      expect(r.choices[0].finish_reason).toBe("stop");
      expect(r.usage).toMatchObject(expectedUsage); // cache and reasoning details: test/money-cache.test.ts
      expect(r.model).toBe(MODEL);
      const seen = last();
      expect(seen.auth).toBe(UPSTREAM_KEY);
      expect(seen.model).toBe(fixture.upstreamModel);
      expect(seen.stream).toBe(false);
      expect(seen.messages).toEqual([{ role: "user", text: "Hi" }]);
    });

    test("multi-turn with a system message, stop sequences, max_tokens, temperature", async () => {
      h.fake.queue(fixture.text("cut", usage, "length"));
      const r = await chat({
        messages: [
          { role: "system", content: "Be terse." },
          { role: "user", content: "One" },
          { role: "assistant", content: "Two" },
          { role: "user", content: "Three" },
        ],
        stop: ["END", "STOP"],
        max_tokens: 50,
        temperature: 0.5,
      });
      expect(r.choices[0].finish_reason).toBe("length");
      const seen = last();
      expect(seen.system).toBe("Be terse.");
      expect(seen.messages).toEqual([
        { role: "user", text: "One" },
        { role: "assistant", text: "Two" },
        { role: "user", text: "Three" },
      ]);
      expect(seen.stop).toEqual(["END", "STOP"]);
      expect(seen.maxTokens).toBe(50);
      expect(seen.temperature).toBe(0.5);
    });

    test("tool-call history goes upstream paired; a tool call comes back", async () => {
      const call = { id: "call_abc123", name: "get_weather", arguments: '{"city":"Paris"}' };
      h.fake.queue(fixture.toolCall({ id: "call_next1", name: "get_time", arguments: '{"tz":"CET"}' }, usage));
      const r = await chat({
        messages: [
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }] },
          { role: "tool", tool_call_id: call.id, content: '{"temp":21}' },
        ],
      });
      expect(r.choices[0].finish_reason).toBe("tool_calls");
      expect(r.choices[0].message.tool_calls).toEqual([{ id: "call_next1", type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } }]);
      const seen = last();
      expect(seen.messages[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: call.id, name: call.name }] });
      expect(JSON.parse(seen.messages[1]!.toolCalls![0]!.arguments)).toEqual({ city: "Paris" });
      expect(seen.messages[2]).toEqual({ role: "tool", toolResult: { id: call.id, text: '{"temp":21}' } });
    });

    test("streaming: text assembles, the finish chunk carries usage, the stream ends cleanly", async () => {
      h.fake.queue(fixture.stream(["Hel", "lo ", "world"], usage));
      const stream = await chat({ messages: [{ role: "user", content: "Hi" }], stream: true });
      let text = "";
      const finals: any[] = [];
      for await (const c of stream) {
        text += c.choices[0]?.delta?.content ?? "";
        if (c.choices[0]?.finish_reason) finals.push(c);
      }
      expect(text).toBe("Hello world");
      expect(finals).toHaveLength(1);
      expect(finals[0].choices[0].finish_reason).toBe("stop");
      expect(finals[0].usage).toMatchObject(expectedUsage);
      expect(last().stream).toBe(true);
    });

    test("streaming a tool call", async () => {
      h.fake.queue(fixture.streamToolCall({ id: "call_s1", name: "lookup", arguments: '{"q":"x"}' }, usage));
      const stream = await chat({ messages: [{ role: "user", content: "look it up" }], stream: true });
      const calls = new Map<number, { id?: string; name: string; arguments: string }>();
      let finish: string | null = null;
      let seenUsage: unknown;
      for await (const c of stream) {
        for (const t of c.choices[0]?.delta?.tool_calls ?? []) {
          const cur = calls.get(t.index) ?? { name: "", arguments: "" };
          if (t.id) cur.id = t.id;
          cur.name += t.function?.name ?? "";
          cur.arguments += t.function?.arguments ?? "";
          calls.set(t.index, cur);
        }
        finish = c.choices[0]?.finish_reason ?? finish;
        seenUsage = c.usage ?? seenUsage;
      }
      expect([...calls.values()]).toEqual([{ id: "call_s1", name: "lookup", arguments: '{"q":"x"}' }]);
      expect(finish).toBe("tool_calls");
      expect(seenUsage).toMatchObject(expectedUsage);
    });

    test("upstream 400 becomes a 400 without provider detail and is not retried", async () => {
      h.fake.queue(fixture.error(400));
      const res = await h.post({ model: MODEL, messages: [{ role: "user", content: "x" }] });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error.type).toBe("invalid_request_error");
      expect(JSON.stringify(body)).not.toContain(fixture.errorMarker);
      expect(h.fake.requests).toHaveLength(1);
    });

    test("upstream 5xx/429 is retried, then a generic 503 with no secrets", async () => {
      h.fake.fallback = () => fixture.error(500);
      h.fake.queue(fixture.error(429));
      try {
        const res = await h.post({ model: MODEL, messages: [{ role: "user", content: "x" }] });
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text).error).toMatchObject({ type: "upstream_error", code: "upstream_unavailable" });
        expect(text).not.toContain(fixture.errorMarker);
        expect(text).not.toContain(UPSTREAM_KEY);
        expect(h.fake.requests.length).toBeGreaterThan(1);
      } finally {
        h.fake.fallback = () => ({ status: 500, json: { error: "no reply scripted" } });
      }
    });
  });
}
