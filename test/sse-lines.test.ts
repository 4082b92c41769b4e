/**
 * The byte-level SSE parser every upstream stream goes through (src/upstream/sse-lines.ts),
 * the in-flight journal's character estimate and the stream guard's shared stop listener.
 */
import { describe, expect, test } from "vitest";
import { SseLines } from "../src/upstream/sse-lines.js";
import { InvalidAnswer } from "../src/plugin/failure.js";
import { inflightUsage } from "../src/pipeline/chat-upstream.js";
import { StreamGuard } from "../src/pipeline/stream-guard.js";
import type { ChatRequest } from "../src/core/chat-request.js";

function parse(pieces: Array<string | Buffer>, max = 1 << 20): Array<[string | undefined, string]> {
  const out: Array<[string | undefined, string]> = [];
  const lines = new SseLines(max, (event, data) => out.push([event, data]));
  for (const p of pieces) lines.feed(typeof p === "string" ? Buffer.from(p) : p);
  return out;
}

describe("SSE lines", () => {
  const stream = 'data: {"a":1}\n\nevent: ping\ndata: x\n\n: keep-alive\n\ndata: [DONE]\n\n';
  const expected = [
    [undefined, '{"a":1}'],
    ["ping", "x"],
    [undefined, "[DONE]"],
  ];

  test("events, a named event, a comment skipped", () => {
    expect(parse([stream])).toEqual(expected);
  });

  test("split at every byte, the same events", () => {
    expect(parse([...Buffer.from(stream)].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  test("CRLF and CR line ends, also split between CR and LF", () => {
    const crlf = stream.replace(/\n/g, "\r\n");
    expect(parse([crlf])).toEqual(expected);
    expect(parse([stream.replace(/\n/g, "\r")])).toEqual(expected);
    const at = crlf.indexOf("\r\n") + 1; // the first read ends with CR, the next starts with LF
    expect(parse([crlf.slice(0, at), crlf.slice(at)])).toEqual(expected);
  });

  test("multi-line data joins with newlines; no space after the colon; id and retry skipped", () => {
    expect(parse(["id: 7\nretry: 10\ndata:first\ndata: second\ndata\n\n"])).toEqual([[undefined, "first\nsecond\n"]]);
  });

  test("a multi-byte character split across reads", () => {
    const bytes = Buffer.from('data: "héllo ✓"\n\n');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(parse([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([[undefined, '"héllo ✓"']]);
  });

  test("an event over maxEventBytes is an invalid answer, also when it never ends", () => {
    expect(() => parse([`data: ${"x".repeat(100)}\n\n`], 50)).toThrow(InvalidAnswer);
    expect(() => parse(["data: ", "x".repeat(60)], 50)).toThrow(InvalidAnswer);
    expect(parse([`data: ${"x".repeat(30)}\n\n`, `data: ${"y".repeat(30)}\n\n`], 50)).toHaveLength(2);
  });
});

test("the in-flight estimate counts characters, ~4 a token, without a tokenizer", () => {
  const body = { model: "m", messages: [{ role: "user", content: "x".repeat(40) }] } as ChatRequest;
  expect(inflightUsage(body, 0)).toEqual({ prompt_tokens: 16, completion_tokens: 0, total_tokens: 16 });
  expect(inflightUsage(body, 401)).toEqual({ prompt_tokens: 16, completion_tokens: 101, total_tokens: 117 });
});

test("10,000 guards on one stopping signal: all stop when it aborts, none after dispose", () => {
  const stopping = new AbortController();
  const guards = Array.from({ length: 10_000 }, () => new StreamGuard(new AbortController().signal));
  for (const g of guards) g.arm(Date.now() + 60_000, stopping.signal, Date.now());
  for (const g of guards.slice(0, 5_000)) g.dispose();
  stopping.abort();
  expect(guards.filter((g) => g.signal.aborted)).toHaveLength(5_000);
  expect(guards.slice(5_000).every((g) => g.signal.aborted)).toBe(true);
  for (const g of guards) g.dispose();
});
