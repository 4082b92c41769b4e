/** The agent both @openai/agents tests run: one function tool, the same question, its final output. */
import { Agent, run, tool, type Model } from "@openai/agents";
import { z } from "zod";
import { WEATHER } from "./upstreams.js";

export const QUESTION = "What is the weather in Paris?";

/** `model`: a model name (the SDK's default provider) or a Model (e.g. chat-completions mode). */
export function weatherAgent(model: string | Model, seenCities: string[]) {
  const getWeather = tool({
    name: "get_weather",
    description: "The current weather in a city.",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seenCities.push(city);
      return WEATHER;
    },
  });
  return new Agent({ name: "Weather", instructions: "Answer with the weather tool.", tools: [getWeather], model });
}

/** Runs the agent on QUESTION, streamed or not, and returns its final output. */
export async function runWeather(agent: ReturnType<typeof weatherAgent>, stream: boolean): Promise<unknown> {
  if (!stream) return (await run(agent, QUESTION)).finalOutput;
  const result = await run(agent, QUESTION, { stream: true });
  await result.completed;
  return result.finalOutput;
}
