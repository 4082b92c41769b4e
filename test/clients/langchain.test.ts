/**
 * LangChain's `ChatOpenAI` (@langchain/openai 1.5, the last line on openai 6 / Node 20),
 * unchanged but for `configuration.baseURL` and `apiKey`: `bindTools` then `invoke` parses the
 * tool call, the ToolMessage goes back under the same id, and `.stream()` assembles the call
 * from chunks; against an OpenAI, an Anthropic and a Gemini upstream.
 */
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { useGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, MODEL, recordingFetch, secondTurn, toolTurns, UPSTREAMS, WEATHER } from "./upstreams.js";

const getWeather = tool(async ({ city }: { city: string }) => (city === "Paris" ? WEATHER : "unknown"), {
  name: "get_weather",
  description: "The current weather in a city.",
  schema: z.object({ city: z.string() }),
});

for (const u of UPSTREAMS) {
  describe(`LangChain ChatOpenAI against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });
    const chat = (f: typeof fetch) => new ChatOpenAI({ model: MODEL, apiKey: h.key, maxRetries: 0, configuration: { baseURL: `${h.gw.url}/v1`, fetch: f } });

    test("bindTools + invoke: the tool call is parsed, and the ToolMessage round-trips under the same id", async () => {
      const rec = recordingFetch(h.gw.fetch);
      const model = chat(rec.fetch).bindTools([getWeather]);
      const question = new HumanMessage("What is the weather in Paris?");
      const first = await model.invoke([question]);
      expect(first.tool_calls).toEqual([{ id: u.call.id, name: "get_weather", args: { city: "Paris" }, type: "tool_call" }]);
      const result = await getWeather.invoke(first.tool_calls![0]!);
      expect(result).toBeInstanceOf(ToolMessage);
      const second = await model.invoke([question, first, result]);
      expect(second).toBeInstanceOf(AIMessage);
      expect(second.content).toBe(ANSWER);

      expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
      const turn2 = secondTurn(u, h.fake.requests[1]!);
      expect(turn2.calls.map((c) => c.id)).toEqual([u.call.id]);
      expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);
      expect(rec.sent[0]!.tools[0]).toMatchObject({ type: "function", function: { name: "get_weather" } });
    });

    test("bindTools + stream: chunks concatenate into the tool call", async () => {
      let whole: AIMessageChunk | undefined;
      for await (const c of await chat(h.gw.fetch).bindTools([getWeather]).stream("What is the weather in Paris?")) whole = whole ? whole.concat(c) : c;
      expect(whole?.tool_calls).toEqual([{ id: u.call.id, name: "get_weather", args: { city: "Paris" }, type: "tool_call" }]);
      expect(h.fake.requests[0]!.path).toBe(u.path(true));
    });
  });
}
