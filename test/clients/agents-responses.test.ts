/**
 * `@openai/agents` 0.14 with its DEFAULT set-up: the Responses API (no chat-completions
 * switch), the client set by `setDefaultOpenAIClient` with only baseURL and apiKey changed,
 * tracing off (it would POST to api.openai.com). The SDK keeps the first default client for the
 * process, as an application would: so one gateway serves three models, one per upstream
 * format (OpenAI, Anthropic, Gemini), each at its own fake. An agent with one function tool
 * runs to completion on each; each fake checks that turn 2 carries the tool's result under
 * the id it issued in turn 1.
 */
import { setDefaultOpenAIClient, setTracingDisabled } from "@openai/agents";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, recordingFetch, secondTurn, toolTurns, RESPONSES_UPSTREAMS, WEATHER } from "./upstreams.js";
import { runWeather, weatherAgent } from "./weather-agent.js";

setTracingDisabled(true);

const modelOf = (name: string) => `test/${name.toLowerCase()}-weather`;
let gw: TestGateway;
const fakes = new Map<string, FakeUpstream>();
let rec: ReturnType<typeof recordingFetch>;

beforeAll(async () => {
  const providers: Record<string, unknown> = {};
  const models: unknown[] = [];
  for (const u of RESPONSES_UPSTREAMS) {
    const fake = await startFakeUpstream(toolTurns(u));
    fakes.set(u.name, fake);
    const one = configFor(u)(fake.url) as { providers: Record<string, unknown>; models: Array<Record<string, unknown>> };
    Object.assign(providers, one.providers);
    models.push({ ...one.models[0], id: modelOf(u.name) });
  }
  gw = await startGateway({ server: { compat: "openai" }, providers, models });
  const key = await gw.createKey();
  await gw.addCredits("100");
  rec = recordingFetch(gw.fetch);
  // Set once, as an application does; the SDK's default provider keeps it.
  setDefaultOpenAIClient(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0, fetch: rec.fetch }));
});

afterAll(async () => {
  await gw?.close();
  for (const f of fakes.values()) await f.close();
});

beforeEach(() => {
  rec.sent.length = 0;
  for (const f of fakes.values()) f.requests.length = 0;
});

for (const u of RESPONSES_UPSTREAMS) {
  describe(`@openai/agents default (Responses) set-up against a ${u.name} upstream`, () => {
    const model = modelOf(u.name);

    for (const stream of [false, true]) {
      test(`a run with one function tool completes (${stream ? "streamed" : "non-streamed"}); turn 2 carries the result under the same id`, async () => {
        const fake = fakes.get(u.name)!;
        const cities: string[] = [];
        const agent = weatherAgent(model, cities);
        const output = await runWeather(agent, stream);
        expect(output).toBe(ANSWER);
        expect(cities).toEqual(["Paris"]);

        // The client spoke the Responses API: two POSTs to /v1/responses, the tool flat and strict.
        expect(rec.sent).toHaveLength(2);
        expect(rec.sent[0]).toMatchObject({
          model,
          instructions: "Answer with the weather tool.",
          tools: [expect.objectContaining({ type: "function", name: "get_weather", strict: true })],
        });
        expect(rec.sent[0]!.messages).toBeUndefined();
        expect(rec.sent[0]!.stream ?? false).toBe(stream);
        const output2 = rec.sent[1]!.input.find((i: any) => i.type === "function_call_output");
        expect(output2).toMatchObject({ call_id: u.call.id });

        // The fake: two requests in its own format; turn 2 replays the call and its result by id.
        expect(fake.requests.map((r) => r.path)).toEqual([u.path(stream), u.path(stream)]);
        expect(u.toolNames(fake.requests[0]!.body)).toEqual(["get_weather"]);
        const turn2 = secondTurn(u, fake.requests[1]!);
        expect(turn2.seen.system).toBe("Answer with the weather tool.");
        expect(turn2.calls).toEqual([{ id: u.call.id, name: "get_weather", arguments: '{"city":"Paris"}' }]);
        expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);
      });
    }
  });
}
