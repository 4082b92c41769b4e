/**
 * The push relay of an SSE upstream body (src/upstream/relay.ts), fed the way a socket feeds it:
 * several events in one read. Whatever one read holds, a pending `next()` is answered (a hang
 * here held the client's stream, its billing and a shutdown forever), and the answer is over at
 * `[DONE]` or the adapter's last event, whatever the body does after.
 */
import { PassThrough } from "node:stream";
import { expect, test } from "vitest";
import { eventTranslator } from "../providers/anthropic/stream.js";
import type { StreamDelta, UpstreamEvent } from "../src/plugin/contract.js";
import { PushedStream } from "../src/upstream/relay.js";

const CAPS = { maxEventBytes: 1024, maxResponseBytes: 1 << 20 };
const sse = (...events: Array<{ event?: string; data: unknown }>) =>
  events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`).join("");
const chunk = (content: string) => ({ data: { choices: [{ index: 0, delta: { content } }] } });
const openaiLike = (e: UpstreamEvent, emit: (d: StreamDelta) => void) => {
  const c = (e.data as { choices?: Array<{ delta: { content: string } }> }).choices;
  if (!c) throw new Error("not a chunk");
  emit({ content: c[0]!.delta.content });
};

/** Reads the stream to its end: the items, and the error it ended with, if any. */
async function drain(s: PushedStream<StreamDelta>, ms = 2000): Promise<{ items: StreamDelta[]; error?: string }> {
  const items: StreamDelta[] = [];
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("next() never answered")), ms).unref());
  try {
    for (;;) {
      const r = await Promise.race([s.next(), timeout]);
      if (r.done) return { items };
      items.push(r.value);
    }
  } catch (err) {
    return { items, error: (err as Error).message };
  }
}

test("a delta and an unusable event in one read: the delta, then the failure", async () => {
  const body = new PassThrough();
  const s = new PushedStream(body, CAPS, openaiLike);
  const reading = drain(s);
  body.write(sse(chunk("partial"), { data: { nope: true } }));
  expect(await reading).toEqual({ items: [{ content: "partial" }], error: "not a chunk" });
});

test("Anthropic: a delta and an error event in one read: the delta, then the provider's failure", async () => {
  const body = new PassThrough();
  const s = new PushedStream(body, CAPS, eventTranslator());
  const reading = drain(s);
  const start = { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3 } } } };
  const block = { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } };
  const delta = { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "partial" } } };
  const error = { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
  body.write(sse(start, block, delta, error));
  const r = await reading;
  expect(r.items).toEqual([{ content: "partial" }]);
  expect(r.error).toMatch(/temporarily unavailable/); // the retryable failure the error event is
});

test("[DONE] then an oversized tail in one read: the answer, complete; the tail is not its failure", async () => {
  const body = new PassThrough();
  const s = new PushedStream(body, CAPS, openaiLike);
  const reading = drain(s);
  body.write(Buffer.concat([Buffer.from(sse(chunk("whole"), { data: "[DONE]" })), Buffer.alloc(4096, 120)]));
  expect(await reading).toEqual({ items: [{ content: "whole" }] });
});

test("[DONE] and a body that never ends: the answer is over at once; the body is destroyed a second later", async () => {
  const body = new PassThrough();
  const s = new PushedStream(body, CAPS, openaiLike);
  const reading = drain(s);
  body.write(sse(chunk("whole"), { data: "[DONE]" }));
  expect(await reading).toEqual({ items: [{ content: "whole" }] });
  expect(body.destroyed).toBe(false);
  await expect.poll(() => body.destroyed, { timeout: 3000 }).toBe(true);
});
