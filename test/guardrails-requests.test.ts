/**
 * The secret guardrail on requests (contract §18, docs/guardrails.md "Requests"): every
 * endpoint checks every text before any upstream call. `block` answers 400 guardrail_blocked
 * naming the rule and where, and nothing reaches the upstream; `redact` forwards the request
 * with the secret replaced; `log` forwards it as sent and records the hit. The secret is never
 * in the 400's body or headers, nor in the log line.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { answerFor, callsWith, guardedConfig } from "./helpers/guardrails.js";
import { SAMPLES } from "./helpers/secret-samples.js";

const AWS = SAMPLES.find((s) => s.rule === "aws-access-key-id")!;

let fake: FakeUpstream;
const gws: Record<string, { gw: TestGateway; key: string }> = {};

beforeAll(async () => {
  fake = await startFakeUpstream((req) => answerFor(req));
  for (const mode of ["block", "redact", "log", "off"]) {
    const gw = await startGateway(guardedConfig(fake.url, { mode }));
    gws[mode] = { gw, key: await gw.createKey() };
    await gw.addCredits("10");
  }
});
afterAll(async () => {
  for (const { gw } of Object.values(gws)) await gw.close();
  await fake?.close();
});

function send(mode: string, call: ReturnType<typeof callsWith>[number]) {
  return fetch(`${gws[mode]!.gw.url}${call.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...call.headers },
    body: JSON.stringify(call.body),
  });
}

const calls = (mode: string) => callsWith(AWS.secret, gws[mode]?.key ?? "");

describe("block", () => {
  it.each(callsWith(AWS.secret, "").map((c, i) => [c.endpoint, i] as const))(
    "%s: 400 guardrail_blocked naming the rule and where; nothing forwarded",
    async (_, i) => {
      const call = calls("block")[i]!;
      const before = fake.requests.length;
      const res = await send("block", call);
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(text).toContain("guardrail_blocked");
      expect(text).toContain("aws-access-key-id");
      expect(text).toContain(call.where);
      expect(text).not.toContain(AWS.secret);
      expect(JSON.stringify([...res.headers])).not.toContain(AWS.secret);
      expect(fake.requests.length).toBe(before);
    },
  );

  it("lets a request without a secret through untouched", async () => {
    const call = calls("block")[0]!;
    (call.body as any).messages[1].content = "nothing secret: sk-... is a placeholder";
    const res = await send("block", call);
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.body.messages[1].content).toBe("nothing secret: sk-... is a placeholder");
  });
});

describe("redact", () => {
  it.each(callsWith(AWS.secret, "").map((c, i) => [c.endpoint, i] as const))(
    "%s: forwarded with [REDACTED:aws-access-key-id] in place of the secret",
    async (_, i) => {
      const call = calls("redact")[i]!;
      const res = await send("redact", call);
      expect(res.status, await res.text()).toBe(200);
      const got = fake.requests.at(-1)!;
      expect(got.raw).not.toContain(AWS.secret);
      expect(got.raw).toContain("[REDACTED:aws-access-key-id]");
    },
  );
});

describe("log", () => {
  it("forwards the request as sent and names the hit in the request's log line, without the secret", async () => {
    const call = calls("log")[0]!;
    const res = await send("log", call);
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.raw).toContain(AWS.secret);
    const { gw } = gws.log!;
    await gw.close(); // the log file is complete once the gateway stopped
    const lines = readFileSync(gw.logFile!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const line = lines.find((l) => l.req_id === res.headers.get("x-request-id"));
    expect(line?.guardrails).toEqual([{ rule: "aws-access-key-id", action: "log", direction: "request" }]);
    expect(readFileSync(gw.logFile!, "utf8")).not.toContain(AWS.secret);
  });
});

describe("off", () => {
  it("is the default: nothing checked", async () => {
    const res = await send("off", calls("off")[0]!);
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.raw).toContain(AWS.secret);
  });
});

describe("per key", () => {
  it("a key's own mode wins over the config's, both ways", async () => {
    const { gw } = gws.block!;
    const off = await gw.createKey({ guardrails: "off" });
    const redact = await gw.createKey({ guardrails: "redact" });
    const call = (key: string) => callsWith(AWS.secret, key)[0]!;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${off}` },
      body: JSON.stringify(call(off).body),
    });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.raw).toContain(AWS.secret);
    const red = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${redact}` },
      body: JSON.stringify(call(redact).body),
    });
    expect(red.status).toBe(200);
    expect(fake.requests.at(-1)!.raw).toContain("[REDACTED:aws-access-key-id]");
  });

  it("on a gateway whose config leaves it off, a key in block mode is refused", async () => {
    const { gw } = gws.off!;
    const block = await gw.createKey({ guardrails: "block" });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${block}` },
      body: JSON.stringify(callsWith(AWS.secret, block)[0]!.body),
    });
    expect(res.status).toBe(400);
  });
});

describe("fail closed", () => {
  it("a checker that throws refuses the request and forwards nothing", async () => {
    // A secret inside JSON nested far deeper than the checker's recursion can follow: it throws (a stack overflow).
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const raw = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"${AWS.secret}"}],"x":${deep}}`;
    const { gw, key } = gws.redact!;
    const before = fake.requests.length;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: raw,
    });
    const body: any = await res.json();
    expect(res.status).toBe(500);
    expect(body.error.code).toBe("guardrail_failed");
    expect(JSON.stringify(body)).not.toContain(AWS.secret);
    expect(fake.requests.length).toBe(before);
  });
});

describe("metrics", () => {
  it("counts each hit in gateway_guardrail_hits_total{rule,action,direction}", async () => {
    const { gw } = gws.redact!;
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith('gateway_guardrail_hits_total{rule="aws-access-key-id",action="redact",direction="request"}'));
    expect(Number(line?.split(" ")[1])).toBe(callsWith(AWS.secret, "").length - 1); // each redact call but Gemini's countTokens, which has no request record (docs/guardrails.md)
    expect(text).not.toContain(AWS.secret);
  });
});
