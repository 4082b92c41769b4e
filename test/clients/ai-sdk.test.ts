/**
 * Vercel's AI SDK (ai 6 with @ai-sdk/openai 3, both Node 18+), unchanged but for `baseURL`
 * and `apiKey` on `createOpenAI`, through its chat-completions provider (`.chat(...)`):
 * `generateText` and `streamText` with one tool complete a tool step then a text step,
 * against an OpenAI, an Anthropic and a Gemini upstream.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, test } from "vitest";
import { useGateway } from "../helpers/gateway.js";
import { configFor, MODEL, recordingFetch, secondTurn, toolTurns, UPSTREAMS, WEATHER, weatherRun } from "./upstreams.js";

for (const u of UPSTREAMS) {
  describe(`AI SDK openai.chat() against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });

    for (const streamed of [false, true]) {
      test(`${streamed ? "streamText" : "generateText"} with a tool: a tool step, then the text; the result goes back under the call's id`, async () => {
        const rec = recordingFetch(h.gw.fetch);
        const model = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.key, fetch: rec.fetch }).chat(MODEL);
        const steps = await weatherRun(model, streamed);
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
