/**
 * The three upstream wire formats the client tests run against, each a fake that plays a
 * two-turn tool conversation in its provider's real format (the fixtures of
 * test/providers/*.fixture.ts, which cite the published references): turn 1 answers with a
 * call to `get_weather`, turn 2 (the request that carries the tool's result) with text.
 */
import { generateText, stepCountIs, streamText, tool, type LanguageModel } from "ai";
import { expect } from "vitest";
import { z } from "zod";
import type { Call, ProviderFixture, SeenRequest } from "../helpers/conformance.js";
import type { Recorded, Reply } from "../helpers/fake-upstream.js";
import { openaiFormatFixture } from "../helpers/openai-wire.js";
import { anthropicFixture } from "../providers/anthropic.fixture.js";
import { googleFixture } from "../providers/google.fixture.js";

export const ANSWER = "It is 18 degrees and sunny in Paris.";
export const WEATHER = "18C, sunny";
const usage = { prompt: 40, completion: 9 };

export interface Upstream {
  name: string;
  fixture: ProviderFixture;
  /** The tool call the fake makes, with an id in the provider's own format. */
  call: Call;
  /** The path the fake expects for a non-streamed / streamed chat. */
  path(stream: boolean): string;
  /** The tool names a request body declares, read in the provider's format. */
  toolNames(body: any): string[];
}

const openaiFixture = openaiFormatFixture("openai");

export const UPSTREAMS: Upstream[] = [
  {
    name: "OpenAI",
    fixture: openaiFixture,
    call: { id: "call_Wq8ZkE3xR0tYbN7sLmPa1cVd", name: "get_weather", arguments: '{"city":"Paris"}' },
    path: () => "/v1/chat/completions",
    toolNames: (b) => b.tools.map((t: any) => t.function.name),
  },
  {
    name: "Anthropic",
    fixture: anthropicFixture,
    call: { id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", arguments: '{"city":"Paris"}' },
    path: () => "/v1/messages",
    toolNames: (b) => b.tools.map((t: any) => t.name),
  },
  {
    name: "Gemini",
    fixture: googleFixture,
    call: { id: "fc-7d1e2b9a", name: "get_weather", arguments: '{"city":"Paris"}' },
    path: (stream) => `/v1beta/models/${googleFixture.upstreamModel}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    toolNames: (b) => b.tools.flatMap((t: any) => t.functionDeclarations.map((d: any) => d.name)),
  },
];

/**
 * For /v1/responses: OpenAI itself is served natively there (its own Responses API, tested in
 * test/responses-codex-native.test.ts), so the OpenAI-format upstream of the translated path is
 * an `openai-compatible` server speaking the same chat wire format.
 */
export const RESPONSES_UPSTREAMS: Upstream[] = UPSTREAMS.map((u) => (u.name === "OpenAI" ? { ...u, fixture: openaiFormatFixture("openai-compatible") } : u));

export const MODEL = "test/weather-model";

/** A gateway config under compat openai with one endpoint of `u` at the fake. */
export function configFor(u: Upstream) {
  return (fakeUrl: string): Record<string, unknown> => ({
    server: { compat: "openai" },
    providers: { [u.fixture.plugin]: u.fixture.provider(fakeUrl, "sk-upstream-clients-5b1") },
    models: [
      { id: MODEL, pricing: { prompt: "1", completion: "2" }, max_output: 4096, endpoints: [{ provider: u.fixture.plugin, model: u.fixture.upstreamModel }] },
    ],
  });
}

const hasToolResult = (seen: SeenRequest) => seen.messages.some((m) => m.role === "tool");

/** The fake's script: a tool call until the request carries a tool result, then the answer. */
export function toolTurns(u: Upstream) {
  return (req: Recorded): Reply => {
    const seen = u.fixture.seen(req);
    if (hasToolResult(seen)) return seen.stream ? u.fixture.stream(["It is 18 degrees ", "and sunny in Paris."], usage) : u.fixture.text(ANSWER, usage);
    return seen.stream ? u.fixture.streamToolCall(u.call, usage) : u.fixture.toolCall(u.call, usage);
  };
}

/** What the fake saw in turn 2: the replayed call and the tool result, in neutral terms. */
export function secondTurn(u: Upstream, req: Recorded) {
  const seen = u.fixture.seen(req);
  const calls = seen.messages.flatMap((m) => m.toolCalls ?? []);
  const results = seen.messages.flatMap((m) => (m.toolResult ? [m.toolResult] : []));
  return { seen, calls, results };
}

/** A fetch that keeps the JSON bodies a client sends (to assert on them), then goes through `inner`. */
export function recordingFetch(inner: typeof globalThis.fetch) {
  const sent: Array<Record<string, any>> = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (typeof init?.body === "string") sent.push(JSON.parse(init.body) as Record<string, any>);
    return inner(input, init);
  };
  return { fetch, sent };
}

/** The AI SDK's `get_weather` tool: each call's city pushed to `cities`, answered WEATHER. */
function weatherTools(cities: string[]) {
  return {
    get_weather: tool({
      description: "The current weather in a city.",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => (cities.push(city), WEATHER),
    }),
  };
}

/**
 * The AI SDK's two-step weather run on `model`, with `generateText` or `streamText` (read to its
 * end, no error reported): a tool step that asks for Paris's weather, then ANSWER. Its steps.
 */
export async function weatherRun(model: LanguageModel, streamed: boolean) {
  const cities: string[] = [];
  const options = { model, tools: weatherTools(cities), stopWhen: stepCountIs(3), prompt: "What is the weather in Paris?", maxRetries: 0 };
  let text: string;
  let steps: Awaited<ReturnType<typeof generateText<ReturnType<typeof weatherTools>>>>["steps"];
  if (streamed) {
    let failure: unknown;
    const r = streamText({ ...options, onError: ({ error }) => void (failure = error) });
    [text, steps] = [await r.text, await r.steps];
    expect(failure).toBeUndefined();
  } else {
    ({ text, steps } = await generateText(options));
  }
  expect(text).toBe(ANSWER);
  expect(cities).toEqual(["Paris"]);
  expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
  return steps;
}
