/**
 * Vercel's AI SDK (ai 6 with @ai-sdk/openai 3, both Node 18+), unchanged but for `baseURL`
 * and `apiKey` on `createOpenAI`, through its chat-completions provider (`.chat(...)`):
 * `generateText` and `streamText` with one tool complete a tool step then a text step,
 * against an OpenAI, an Anthropic and a Gemini upstream.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { useGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, MODEL, recordingFetch, secondTurn, toolTurns, UPSTREAMS, WEATHER } from "./upstreams.js";

function weatherTools(cities: string[]) {
  return {
    get_weather: tool({
      description: "The current weather in a city.",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => (cities.push(city), WEATHER),
    }),
  };
}

for (const u of UPSTREAMS) {
  describe(`AI SDK openai.chat() against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });

    for (const streamed of [false, true]) {
      test(`${streamed ? "streamText" : "generateText"} with a tool: a tool step, then the text; the result goes back under the call's id`, async () => {
        const rec = recordingFetch(h.gw.fetch);
        const model = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.key, fetch: rec.fetch }).chat(MODEL);
        const cities: string[] = [];
        const options = { model, tools: weatherTools(cities), stopWhen: stepCountIs(3), prompt: "What is the weather in Paris?", maxRetries: 0 };
        let text: string;
        let steps: Array<{ finishReason: string; toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }> }>;
        if (streamed) {
          let failure: unknown;
          const r = streamText({ ...options, onError: ({ error }) => void (failure = error) });
          text = await r.text;
          steps = await r.steps;
          expect(failure).toBeUndefined();
        } else {
          ({ text, steps } = await generateText(options));
        }
        expect(text).toBe(ANSWER);
        expect(cities).toEqual(["Paris"]);
        expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
        expect(steps[0]!.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input }))).toEqual([
          { id: u.call.id, name: "get_weather", input: { city: "Paris" } },
        ]);

        expect(h.fake.requests.map((r) => r.path)).toEqual([u.path(streamed), u.path(streamed)]);
        expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
        const turn2 = secondTurn(u, h.fake.requests[1]!);
        expect(turn2.calls.map((c) => c.id)).toEqual([u.call.id]);
        expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);
        expect(rec.sent[1]!.messages.find((m: any) => m.role === "tool")).toMatchObject({ tool_call_id: u.call.id, content: WEATHER });
      });
    }
  });
}
