/** SSE as docs/http.md fixes it: framing, [DONE], usage on the finish chunk, errors after the first byte. */
import { expect, test } from "vitest";
import { openaiConfig, useGateway } from "./helpers/gateway.js";
import { stream } from "./helpers/openai-wire.js";

const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true };

const h = useGateway((fakeUrl) => openaiConfig(fakeUrl, { health: { failureThreshold: 1000 } }), { credits: "10" });

function events(text: string): string[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((e) => {
      expect(e.startsWith("data: ")).toBe(true);
      return e.slice(6);
    });
}

const ledger = async () => await h.gw.store.usage({});

test("framing: data: <chunk> events, usage on the finish chunk, then data: [DONE]", async () => {
  h.fake.queue(stream(["Hel", "lo"], { prompt_tokens: 9, completion_tokens: 2 }));
  const res = await h.post({ ...body, stream_options: { include_usage: false } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  const list = events(await res.text());
  expect(list.at(-1)).toBe("[DONE]");
  const chunks = list.slice(0, -1).map((e) => JSON.parse(e));
  for (const c of chunks) {
    expect(Object.keys(c).filter((k) => k !== "usage")).toEqual(["id", "object", "created", "model", "choices"]);
    expect(c.object).toBe("chat.completion.chunk");
    expect(c.model).toBe("openai/gpt-4o-mini");
    expect(Object.keys(c.choices[0]).sort()).toEqual(["delta", "finish_reason", "index"]);
  }
  expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "Hel" });
  const final = chunks.at(-1);
  expect(final.choices[0].finish_reason).toBe("stop");
  expect(final.usage).toEqual({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
  expect(chunks.filter((c) => c.usage)).toHaveLength(1);
  // The upstream was asked for usage although the client said include_usage: false.
  expect(h.fake.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
});

test("a failure after the first byte: one error event, no [DONE], received tokens billed as estimated", async () => {
  const before = (await ledger())[0]?.requests ?? 0;
  h.fake.queue(stream(["partial ", "answer"], undefined, { cut: true, delayMs: 30 }));
  const res = await h.post(body);
  expect(res.status).toBe(200);
  const list = events(await res.text());
  expect(list).not.toContain("[DONE]");
  const last = JSON.parse(list.at(-1)!);
  expect(Object.keys(last)).toEqual(["error"]);
  expect(last.error).toMatchObject({ type: "upstream_error", request_id: res.headers.get("x-request-id") });
  expect(Object.keys(last.error).sort()).toEqual(["code", "message", "request_id", "type"]);
  await expect.poll(async () => (await ledger())[0]?.requests).toBe(before + 1);
});

test("an upstream that ends without a finish reason is a failure too (no silent truncation)", async () => {
  h.fake.queue({
    sse: [
      { data: { id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "half" }, finish_reason: null }] } },
    ],
  });
  const list = events(await (await h.post(body)).text());
  expect(list).not.toContain("[DONE]");
  expect(JSON.parse(list.at(-1)!).error.code).toBe("stream_interrupted");
});

test("a client disconnect aborts the upstream request", async () => {
  const aborted = h.fake.aborted;
  h.fake.queue(
    stream(
      Array.from({ length: 200 }, (_, i) => `t${i} `),
      undefined,
      { delayMs: 10 },
    ),
  );
  const controller = new AbortController();
  const res = await h.post(body).then((r) => r);
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
  controller.abort();
  await expect.poll(() => h.fake.aborted, { timeout: 3000 }).toBe(aborted + 1);
});

// A complete 200 stream with nothing in it is unusable: 502, not asked again (docs/limits.md).
test("an upstream that fails before any output gives a plain HTTP error, not a 200 stream", async () => {
  h.fake.queue({ sse: [], done: true }, { sse: [], done: true });
  h.fake.fallback = () => ({ sse: [], done: true });
  try {
    const res = await h.post(body);
    expect(res.status).toBe(502);
    expect(h.fake.requests).toHaveLength(1);
  } finally {
    h.fake.fallback = () => ({ status: 500, json: {} });
  }
});
