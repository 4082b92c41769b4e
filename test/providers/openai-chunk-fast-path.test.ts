/**
 * The hand-written check for common chat.completion.chunk shapes (plainChunk) must never
 * accept what the adapter's zod schema refuses: it only skips building zod's copy. Every
 * variant here is put to both; a chunk plainChunk declines still goes through the schema.
 */
import { describe, expect, test } from "vitest";
import { chunkSchema, plainChunk } from "../../providers/openai-compatible/answer-schema.js";

const choice = (over: Record<string, unknown>) => ({ index: 0, delta: { content: "hi" }, finish_reason: null, logprobs: null, ...over });
const chunk = (over: Record<string, unknown> = {}, choices: unknown = [choice({})]) => ({ id: "c", object: "chat.completion.chunk", choices, ...over });

const plain = [
  chunk(),
  chunk({}, [choice({ delta: { role: "assistant", content: "" } })]),
  chunk({}, [choice({ delta: {}, finish_reason: "stop" })]),
  chunk({}, [choice({ delta: null })]),
  chunk({}, [choice({ index: undefined })]),
  chunk({}, [choice({ delta: { refusal: "no" } })]),
  chunk({}, []),
  chunk({ choices: null }),
  chunk({ usage: null }),
];
const schemaOnly = [
  chunk({ usage: { prompt_tokens: 3, completion_tokens: 1 } }, []),
  chunk({}, [choice({ delta: { tool_calls: [{ index: 0, id: "t", function: { name: "f", arguments: "" } }] } })]),
  chunk({}, [choice({ delta: { content: [{ type: "text", text: "a" }] } })]),
];
const broken = [
  null,
  [],
  "text",
  chunk({ choices: "x" }),
  chunk({}, [choice({ index: -1 })]),
  chunk({}, [choice({ index: 0.5 })]),
  chunk({}, [choice({ finish_reason: 5 })]),
  chunk({}, [choice({ delta: { content: 7 } })]),
  chunk({}, [choice({ delta: [] })]),
  chunk({}, [choice({ delta: { refusal: {} } })]),
  chunk({}, [null]),
  chunk({ usage: { prompt_tokens: "3" } }),
];

describe("plainChunk agrees with chunkSchema", () => {
  test.each(plain.map((c) => [JSON.stringify(c), c]))("common shape read without zod: %s", (_s, c) => {
    expect(plainChunk(c)).toBe(c);
    expect(chunkSchema.safeParse(c).success).toBe(true);
  });
  test.each(schemaOnly.map((c) => [JSON.stringify(c), c]))("left to the schema, which accepts it: %s", (_s, c) => {
    expect(plainChunk(c)).toBeUndefined();
    expect(chunkSchema.safeParse(c).success).toBe(true);
  });
  test.each(broken.map((c) => [JSON.stringify(c), c]))("refused by both: %s", (_s, c) => {
    expect(plainChunk(c)).toBeUndefined();
    expect(chunkSchema.safeParse(c).success).toBe(false);
  });
});
