/**
 * `@openai/agents` 0.14 (the last line on openai 6 / Node 20) in chat-completions mode, pointed
 * at the gateway and changed in nothing else: an agent with one function tool completes a
 * tool-using run against an OpenAI, an Anthropic and a Gemini upstream. Each fake checks that
 * turn 2 carries the tool's result under the id it issued in turn 1.
 */
import { OpenAIChatCompletionsModel, setTracingDisabled } from "@openai/agents";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { useGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, MODEL, recordingFetch, secondTurn, toolTurns, UPSTREAMS, WEATHER } from "./upstreams.js";
import { runWeather, weatherAgent } from "./weather-agent.js";

// Tracing would POST to api.openai.com with OPENAI_API_KEY, not to the gateway.
setTracingDisabled(true);

for (const u of UPSTREAMS) {
  describe(`@openai/agents chat-completions mode against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });

    for (const stream of [false, true]) {
      test(`a run with one function tool completes (${stream ? "streamed" : "non-streamed"}); turn 2 carries the result under the same id`, async () => {
        const rec = recordingFetch(h.gw.fetch);
        const client = new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.key, maxRetries: 0, fetch: rec.fetch });
        const cities: string[] = [];
        const agent = weatherAgent(new OpenAIChatCompletionsModel(client, MODEL), cities);
        const output = await runWeather(agent, stream);
        expect(output).toBe(ANSWER);
        expect(cities).toEqual(["Paris"]);

        // The fake: two requests in its own format, on its own paths.
        expect(h.fake.requests.map((r) => r.path)).toEqual([u.path(stream), u.path(stream)]);
        expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
        const turn2 = secondTurn(u, h.fake.requests[1]!);
        expect(turn2.calls).toEqual([{ id: u.call.id, name: "get_weather", arguments: '{"city":"Paris"}' }]);
        expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);

        // What the client sent: the tool as a strict function, the call id echoed back.
        expect(rec.sent).toHaveLength(2);
        expect(rec.sent[0]!.tools).toEqual([{ type: "function", function: expect.objectContaining({ name: "get_weather", strict: true }) }]);
        const toolMessage = rec.sent[1]!.messages.find((m: any) => m.role === "tool");
        expect(toolMessage).toMatchObject({ tool_call_id: u.call.id, content: WEATHER });
        expect(rec.sent[0]!.stream ?? false).toBe(stream);
      });
    }
  });
}
