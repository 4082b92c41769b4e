/**
 * Recorded real answers (test/fixtures/providers/, from vercel/ai) as the fake upstream's
 * replies, and what the gateway's client assembles from an SSE answer.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { Reply } from "../helpers/fake-upstream.js";

const DIR = new URL("../fixtures/providers/", import.meta.url);

/** The parsed JSON of a recorded non-streamed answer. */
export const recorded = (file: string): any => JSON.parse(readFileSync(new URL(file, DIR), "utf8"));

/** The stream events of a `.chunks.txt`, one JSON value per line. */
export const recordedChunks = (file: string): any[] =>
  readFileSync(new URL(file, DIR), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

export const jsonReply = (file: string): Reply => ({ json: recorded(file) });

/** How a provider frames its stream: Anthropic names each event; OpenAI-format servers end with `[DONE]`; Gemini does neither. */
export type Framing = "named" | "done" | "bare";

export const sseReply = (file: string, framing: Framing): Reply => ({
  sse: recordedChunks(file).map((data: { type?: string }) => (framing === "named" ? { event: data.type, data } : { data })),
  done: framing === "done",
});

/** A non-streamed answer of the gateway: 200 and its JSON. */
export async function completion(res: Response): Promise<any> {
  expect(res.status).toBe(200);
  return res.json();
}

export interface Assembled {
  text: string;
  calls: Array<{ id?: string; name: string; arguments: string }>;
  finish: string | null;
  usage: any;
}

/** Reads an SSE answer of the gateway to its end ([DONE]) and puts the deltas together. */
export async function assemble(res: Response): Promise<Assembled> {
  expect(res.status).toBe(200);
  const events = (await res.text()).split("\n\n").filter(Boolean);
  expect(events.at(-1)).toBe("data: [DONE]");
  const out: Assembled = { text: "", calls: [], finish: null, usage: null };
  for (const e of events.slice(0, -1)) {
    const chunk = JSON.parse(e.replace(/^data: /, ""));
    const choice = chunk.choices[0];
    if (chunk.usage) out.usage = chunk.usage;
    if (!choice) continue;
    out.text += choice.delta.content ?? "";
    for (const t of choice.delta.tool_calls ?? []) {
      const call = (out.calls[t.index] ??= { id: t.id, name: "", arguments: "" });
      call.name += t.function?.name ?? "";
      call.arguments += t.function?.arguments ?? "";
    }
    if (choice.finish_reason) out.finish = choice.finish_reason;
  }
  return out;
}
