/**
 * Correctness and time-to-first-byte, with a small node:http client (keep-alive):
 * full shape checks of a few sampled responses per measurement, and a sequential loop of
 * streamed requests timing the first body byte.
 */
import { Agent, request } from "node:http";
import { REPLY_TEXT } from "./fake-upstream.js";
import { bodyFor, type Target } from "./load.js";
import { percentile, sortedCopy } from "./stats.js";

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Reply {
  status: number;
  contentType: string;
  body: string;
  /** ms from sending the request to the first body byte. */
  ttfbMs: number;
}

function post(target: Target, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(target.url, { method: "POST", agent, headers: { "content-type": "application/json", ...target.headers } }, (res) => {
      let ttfbMs = NaN;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        if (Number.isNaN(ttfbMs)) ttfbMs = performance.now() - t0;
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: text, ttfbMs }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const usageOk = (u: unknown) =>
  isObj(u) && typeof u.prompt_tokens === "number" && typeof u.completion_tokens === "number" && typeof u.total_tokens === "number";

/** Problems with a non-streamed answer; [] when it is a well-formed chat.completion. */
export function completionProblems(r: Reply): string[] {
  if (r.status !== 200) return [`status ${r.status}`];
  let json: unknown;
  try {
    json = JSON.parse(r.body);
  } catch {
    return ["body is not JSON"];
  }
  const choice = isObj(json) && Array.isArray(json.choices) ? (json.choices[0] as unknown) : undefined;
  const message = isObj(choice) ? choice.message : undefined;
  const problems: string[] = [];
  if (!isObj(json) || json.object !== "chat.completion" || typeof json.id !== "string") problems.push("not a chat.completion");
  if (!isObj(message) || message.role !== "assistant" || message.content !== REPLY_TEXT) problems.push("wrong message");
  if (!isObj(choice) || choice.finish_reason !== "stop") problems.push("finish_reason is not stop");
  if (!isObj(json) || !usageOk(json.usage)) problems.push("usage missing");
  return problems;
}

/** Problems with a streamed answer: every event a chunk, the text whole, usage given, `[DONE]` last. */
export function streamProblems(r: Reply): string[] {
  if (r.status !== 200) return [`status ${r.status}`];
  if (!r.contentType.startsWith("text/event-stream")) return [`content-type ${r.contentType}`];
  const events = r.body.split("\n\n").filter((e) => e.length > 0);
  if (events.at(-1) !== "data: [DONE]" || !r.body.endsWith("\n\n")) return ["does not end with data: [DONE]"];
  let text = "";
  let finished = false;
  let usage = false;
  for (const e of events.slice(0, -1)) {
    if (!e.startsWith("data: ")) return [`not a data event: ${e.slice(0, 40)}`];
    let chunk: unknown;
    try {
      chunk = JSON.parse(e.slice(6));
    } catch {
      return ["event is not JSON"];
    }
    if (!isObj(chunk) || chunk.object !== "chat.completion.chunk" || !Array.isArray(chunk.choices)) return ["event is not a chat.completion.chunk"];
    for (const c of chunk.choices as unknown[]) {
      if (isObj(c) && isObj(c.delta) && typeof c.delta.content === "string") text += c.delta.content;
      if (isObj(c) && c.finish_reason === "stop") finished = true;
    }
    if (usageOk(chunk.usage)) usage = true;
  }
  const problems: string[] = [];
  if (text !== REPLY_TEXT) problems.push(`text "${text}"`);
  if (!finished) problems.push("no finish_reason stop");
  if (!usage) problems.push("no usage");
  return problems;
}

/** Sends `n` requests and fully checks each; returns the distinct problems found. */
export async function sampleCheck(target: Target, stream: boolean, n = 3): Promise<string[]> {
  const problems = new Set<string>();
  for (let i = 0; i < n; i++) {
    const r = await post(target, bodyFor(stream));
    for (const p of stream ? streamProblems(r) : completionProblems(r)) problems.add(`${target.name}: ${p}`);
  }
  return [...problems];
}

export interface TtfbResult {
  p50Ms: number;
  p99Ms: number;
  samples: number;
  invalid: number;
}

/** Sequential streamed requests at one connection; time to the first body byte. */
export async function ttfbLoop(target: Target, n: number, warmup = 20): Promise<TtfbResult> {
  const times: number[] = [];
  let invalid = 0;
  for (let i = 0; i < warmup + n; i++) {
    const r = await post(target, bodyFor(true));
    if (streamProblems(r).length > 0) invalid++;
    if (i >= warmup) times.push(r.ttfbMs);
  }
  const sorted = sortedCopy(times);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), samples: n, invalid };
}
