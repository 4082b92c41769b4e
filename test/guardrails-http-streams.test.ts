/**
 * The secret guardrail on streamed answers over HTTP (contract §18, docs/guardrails.md
 * "Streams"), on every endpoint's own stream: chat completion chunks, Responses events,
 * Anthropic Messages events and Gemini chunks, each relayed from a fake upstream that splits
 * the secret across three events. `redact`: the client's bytes never hold the secret, the
 * marker takes its place; `block`: the stream ends with the endpoint's error event before it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { answerFor, guardedConfig } from "./helpers/guardrails.js";
import { stream } from "./helpers/openai-wire.js";
import { messageItem, responsesStream } from "./helpers/responses-wire.js";
import { SAMPLES } from "./helpers/secret-samples.js";
import { messageEnd, messageStart, textBlockEvents } from "./providers/anthropic.fixture.js";
import { candidate, response, sse } from "./providers/google.fixture.js";

const S = SAMPLES.find((s) => s.rule === "github-token")!;
const INTRO = "Sure, here is what the file holds. ";
const PARTS = [INTRO, `token ${S.secret.slice(0, 10)}`, S.secret.slice(10, 25), `${S.secret.slice(25)} and that is all.`];

/** The answer as each API streams it, split in PARTS. */
function streamFor(req: Recorded): Reply {
  if (req.body?.stream !== true && !req.path.includes("streamGenerateContent")) return answerFor(req, PARTS.join(""));
  if (req.path.includes("/v1/responses")) {
    const reply = responsesStream([messageItem(PARTS.join(""))], { input_tokens: 5, output_tokens: 9 }) as { sse: Array<{ event?: string; data: any }> };
    const added = reply.sse.find((e) => e.data.type === "response.output_item.added")!;
    added.data.item = { ...added.data.item, content: [] }; // as OpenAI sends it: the text comes in the deltas
    const i = reply.sse.findIndex((e) => e.data.type === "response.output_text.delta");
    const one = reply.sse[i]!;
    reply.sse.splice(i, 1, ...PARTS.map((delta) => ({ event: one.event, data: { ...one.data, delta } })));
    return reply;
  }
  if (req.path.includes("/v1/chat/completions")) return stream(PARTS);
  if (req.path.includes("/v1/messages")) {
    return { sse: [messageStart({ input_tokens: 5 }), ...textBlockEvents(0, PARTS), ...messageEnd("end_turn", { output_tokens: 9 })], done: false };
  }
  if (req.path.includes(":streamGenerateContent")) {
    const chunks = PARTS.map((text) => response([candidate([{ text }])]));
    chunks.push(response([candidate([{ text: "" }], "STOP")], { promptTokenCount: 5, candidatesTokenCount: 9 }));
    return sse(chunks);
  }
  return { status: 404, json: { error: "unexpected path" } };
}

let fake: FakeUpstream;
const gws: Record<string, { gw: TestGateway; key: string }> = {};

beforeAll(async () => {
  fake = await startFakeUpstream(streamFor);
  for (const mode of ["block", "redact"]) {
    const gw = await startGateway(guardedConfig(fake.url, { mode, direction: ["response"] }));
    gws[mode] = { gw, key: await gw.createKey() };
    await gw.addCredits("10");
  }
});
afterAll(async () => {
  for (const { gw } of Object.values(gws)) await gw.close();
  await fake?.close();
});

const ENDPOINTS = [
  { name: "chat", path: "/v1/chat/completions", body: { model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "cat .env" }] } },
  { name: "responses", path: "/v1/responses", body: { model: "openai/gpt-4o-mini", stream: true, input: "cat .env" } },
  {
    name: "messages",
    path: "/v1/messages",
    body: { model: "anthropic/claude-sonnet-4", max_tokens: 100, stream: true, messages: [{ role: "user", content: "cat .env" }] },
  },
  {
    name: "gemini",
    path: "/v1beta/models/google/gemini-2.5-flash:streamGenerateContent?alt=sse",
    body: { contents: [{ role: "user", parts: [{ text: "cat .env" }] }] },
  },
];

function post(mode: string, ep: { path: string; body: unknown }) {
  const { gw, key } = gws[mode]!;
  return fetch(`${gw.url}${ep.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-api-key": key, "x-goog-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(ep.body),
  });
}

describe.each(ENDPOINTS.map((e) => [e.name, e] as const))("%s stream", (_, ep) => {
  it("redact: the client never gets the secret, the marker stands in its place", async () => {
    const res = await post("redact", ep);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(S.secret.slice(0, 10));
    expect(text).not.toContain(S.secret.slice(10, 25));
    expect(text).not.toContain(S.secret.slice(25));
    expect(text).toContain("[REDACTED:github-token]");
    expect(text).toContain("and that is all.");
  });

  it("block: the stream ends with an error event before the secret", async () => {
    const res = await post("block", ep);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain("Sure, here is what the file holds.");
    expect(text).not.toContain(S.secret.slice(0, 10));
    expect(text).toMatch(/error/);
    expect(text).not.toContain("and that is all.");
  });
});

describe("JSON answers", () => {
  const chat = { name: "chat", path: "/v1/chat/completions", body: { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "cat .env" }] } };
  const messages = {
    name: "messages",
    path: "/v1/messages",
    body: { model: "anthropic/claude-sonnet-4", max_tokens: 100, messages: [{ role: "user", content: "x" }] },
  };

  it.each([chat, messages].map((e) => [e.name, e] as const))("%s, redact: the answer's text carries the marker", async (_, ep) => {
    const res = await post("redact", ep);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(S.secret);
    expect(text).toContain("token [REDACTED:github-token] and that is all.");
  });

  it.each([chat, messages].map((e) => [e.name, e] as const))(
    "%s, block: 400 guardrail_blocked naming the rule and where, in the endpoint's error shape",
    async (_, ep) => {
      const res = await post("block", ep);
      const body: any = await res.json();
      expect(res.status).toBe(400);
      expect(JSON.stringify(body)).not.toContain(S.secret);
      expect(body.error.message).toMatch(/github-token/);
      if (ep.name === "messages")
        expect(body.type).toBe("error"); // Anthropic's envelope
      else expect(body.error.code).toBe("guardrail_blocked");
    },
  );
});
