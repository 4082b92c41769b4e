/**
 * The official `openai` client (6.x), unchanged but for baseURL and apiKey: tools on
 * `chat.completions.create`, the stream helper assembling a streamed tool call, and the
 * `runTools` loop, against an OpenAI, an Anthropic and a Gemini upstream. Every answer is also
 * checked against OpenAI's published schema by the harness (helpers/openai-schema.ts).
 */
import type OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { useGateway } from "../helpers/gateway.js";
import { ANSWER, configFor, MODEL, secondTurn, toolTurns, UPSTREAMS, WEATHER } from "./upstreams.js";

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: "function",
    function: { name: "get_weather", description: "The current weather in a city.", parameters },
  },
];
const ask: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "What is the weather in Paris?" }];

for (const u of UPSTREAMS) {
  describe(`openai client against a ${u.name} upstream`, () => {
    const h = useGateway(configFor(u), { fallback: toolTurns(u) });
    const expectedCall = { id: u.call.id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };

    test("chat.completions.create with tools returns the tool call; the fake received the tool", async () => {
      const r = await h.gw.client(h.key).chat.completions.create({ model: MODEL, messages: ask, tools, tool_choice: "auto" });
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
      expect(r.choices[0]!.message.content).toBeNull();
      expect(r.choices[0]!.message.tool_calls).toEqual([expectedCall]);
      expect(h.fake.requests).toHaveLength(1);
      expect(h.fake.requests[0]!.path).toBe(u.path(false));
      expect(u.toolNames(h.fake.requests[0]!.body)).toEqual(["get_weather"]);
    });

    test("the stream helper assembles a streamed tool call (finalChatCompletion)", async () => {
      const stream = h.gw.client(h.key).chat.completions.stream({ model: MODEL, messages: ask, tools });
      const argumentDeltas: string[] = [];
      stream.on("tool_calls.function.arguments.delta", (e) => argumentDeltas.push(e.arguments_delta));
      const done = await stream.finalChatCompletion();
      expect(done.choices[0]!.finish_reason).toBe("tool_calls");
      expect(done.choices[0]!.message.tool_calls).toEqual([expectedCall]);
      expect(argumentDeltas.join("")).toBe('{"city":"Paris"}');
      expect(h.fake.requests[0]!.path).toBe(u.path(true));
    });

    for (const stream of [false, true]) {
      test(`runTools runs the function and returns the model's answer (${stream ? "streamed" : "non-streamed"})`, async () => {
        const cities: string[] = [];
        const runner = h.gw.client(h.key).chat.completions.runTools({
          model: MODEL,
          messages: ask,
          stream,
          tools: [
            {
              type: "function",
              function: {
                name: "get_weather",
                description: "The current weather in a city.",
                parameters,
                parse: JSON.parse,
                function: (args: { city: string }) => (cities.push(args.city), WEATHER),
              },
            },
          ],
        } as never) as unknown as { finalContent(): Promise<string | null> };
        expect(await runner.finalContent()).toBe(ANSWER);
        expect(cities).toEqual(["Paris"]);
        const turn2 = secondTurn(u, h.fake.requests[1]!);
        expect(turn2.calls.map((c) => c.id)).toEqual([u.call.id]);
        expect(turn2.results).toEqual([{ id: u.call.id, text: WEATHER }]);
      });
    }
  });
}
