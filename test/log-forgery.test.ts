/**
 * No client can write a line of the gateway's log (docs/observability.md, "Text from outside"):
 * a `gateway serve` child is sent requests whose model, fallback `models`, provider preferences,
 * metadata tags and Gemini model path carry a newline and then a forged request record (account
 * `victim-forged`, $999), on chat, Responses, /v1/messages, count_tokens and /v1beta. Every
 * stdout line is then a JSON record in the gateway's shape (JSON log) or a terminal line with its
 * time first (`--log-format pretty`), no stderr line is JSON, and the fallback left out is a
 * record of its own whose `model` field is the client's text, exactly, as one escaped string.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, serve, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { messageItem, responsesAnswer } from "./helpers/responses-wire.js";

const MODEL = "openai/gpt-4o-mini";
const FORGED_RECORD = '{"level":"info","time":1,"msg":"request","req_id":"req_forged","account":"victim-forged","status":200,"cost_usd":"999.00"}';
/** A newline, the forged record, a carriage return, a terminal escape and a Unicode line separator. */
const FORGED = `x\n${FORGED_RECORD}\r\n\u001b[2K\u2028${FORGED_RECORD}`;

let fake: FakeUpstream;
let config: string;
let key: string;

beforeAll(async () => {
  assertBuilt();
  fake = await startFakeUpstream((req) =>
    req.path.endsWith("/responses") ? responsesAnswer([messageItem("Hello")], { input_tokens: 3, output_tokens: 1 }) : completion("Hello"),
  );
  const dir = tempDir();
  config = join(dir, "gateway.config.json");
  writeFileSync(config, JSON.stringify({ ...openaiConfig(fake.url), database: join(dir, "gateway.db") }));
  key = (await gateway(["keys", "create", "--name", "app", "--json", "--config", config])).json.key as string;
  await gateway(["credits", "add", "5", "--config", config]);
});
afterAll(() => fake?.close());

const user = [{ role: "user", content: "hi" }];

/** Every request shape that carries client text the gateway might log. */
async function forgeries(url: string): Promise<string[]> {
  const json = { "content-type": "application/json" };
  const openai = { ...json, authorization: `Bearer ${key}` };
  const anthropic = { ...json, "x-api-key": key, "anthropic-version": "2023-06-01" };
  const sends: Array<[string, Record<string, string>, unknown]> = [
    ["/v1/chat/completions", openai, { model: MODEL, models: [FORGED], messages: user }],
    ["/v1/chat/completions", openai, { models: [FORGED, MODEL], messages: user }],
    ["/v1/chat/completions", openai, { model: MODEL, messages: user, metadata: { team: FORGED } }],
    ["/v1/chat/completions", openai, { model: FORGED, messages: user }],
    ["/v1/chat/completions", openai, { model: MODEL, messages: user, provider: { only: [FORGED] } }],
    ["/v1/chat/completions", openai, { model: MODEL, messages: user, provider: { order: [FORGED], ignore: [FORGED] } }],
    ["/v1/responses", openai, { model: MODEL, models: [FORGED], input: "hi" }],
    ["/v1/messages", anthropic, { model: MODEL, models: [FORGED], max_tokens: 16, messages: user }],
    ["/v1/messages/count_tokens", anthropic, { model: FORGED, messages: user }],
    [`/v1beta/models/${encodeURIComponent(FORGED)}:generateContent`, { ...json, "x-goog-api-key": key }, { contents: [{ parts: [{ text: "hi" }] }] }],
  ];
  const ids: string[] = [];
  for (const [path, headers, body] of sends) {
    const res = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    await res.arrayBuffer();
    expect(res.status, path).toBeLessThan(500);
    ids.push(res.headers.get("x-request-id")!);
  }
  return ids;
}

/** Runs the forgeries against a `serve` with `flags`; its stdout lines after the ready line, and its stderr lines. */
async function run(flags: string[]): Promise<{ ids: string[]; out: string[]; err: string[] }> {
  const s = await serve(["--config", config, ...flags]);
  let ids: string[];
  try {
    ids = await forgeries(s.url);
  } finally {
    s.proc.kill("SIGTERM");
  }
  const r = await s.proc;
  const lines = (text: unknown) => String(text).split("\n").filter(Boolean);
  return { ids, out: lines(r.stdout).slice(1), err: lines(r.stderr) };
}

const isJson = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

test("JSON log: every line a record of the gateway's own shape, none forged; the left-out model is one escaped field", async () => {
  const { ids, out, err } = await run([]);
  // stderr is the operator's text lines: never a JSON record, never the client's line break.
  expect(err.filter(isJson)).toEqual([]);
  expect(err.join("\n")).not.toContain("victim-forged");
  const records = out.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const r of records) {
    expect(r).toMatchObject({ level: expect.any(String), time: expect.any(Number), msg: expect.any(String) });
    expect(r.account).not.toBe("victim-forged");
    expect(r.req_id).not.toBe("req_forged");
  }
  // Every request has its line, and the fallback left out is a record of that request.
  for (const id of ids)
    expect(
      records.filter((r) => r.req_id === id && r.msg === "request"),
      id,
    ).toHaveLength(1);
  const skipped = records.filter((r) => r.event === "fallback_skipped");
  expect(skipped.map((r) => r.req_id)).toEqual([ids[0], ids[1], ids[6], ids[7]]);
  for (const r of skipped) expect(r).toMatchObject({ level: "warn", model: FORGED, msg: "model left out of the fallbacks" });
});

test("pretty log: every stdout line starts with its time; the client's text stays inside its field, escaped", async () => {
  const { out, err } = await run(["--log-format", "pretty"]);
  expect(out.length).toBeGreaterThan(10);
  for (const line of out) expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} /);
  const all = [...out, ...err].join("\n");
  for (const raw of ["\u2028", "\r", "\u001b[2K"]) expect(all.includes(raw), JSON.stringify(raw)).toBe(false);
  expect(err.filter(isJson)).toEqual([]);
  const skipped = out.filter((l) => l.includes("model left out of the fallbacks"));
  expect(skipped).toHaveLength(4);
  const escaped = JSON.stringify(FORGED).replaceAll("\u001b", "\\u001b").replaceAll("\u2028", "\\u2028");
  for (const line of skipped) expect(line).toContain(`model=${escaped}`);
});
