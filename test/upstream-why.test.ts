/**
 * Why a request failed is said (docs/observability.md, "Why a request failed"): the request
 * line names each failed attempt's provider and reason, the failure notice appears once a
 * minute per provider, GET /v1/health/providers shows the latest reason. And `gateway serve`
 * in JSON log mode writes only JSON lines to stdout (`| jq`).
 */
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { assertBuilt, BIN, freePort, tempDir } from "./helpers/cli.js";
import { FAST_RETRY, useGateway } from "./helpers/gateway.js";
import { expectError } from "./helpers/http.js";

/** The log's lines once `done` holds for them (the writer flushes every second). */
async function logLines(file: string | undefined, done: (lines: string[]) => boolean): Promise<string[]> {
  expect(file, "the suite runs with a log folder (test/global-setup.ts)").toBeDefined();
  for (let i = 0; i < 60; i++) {
    const lines = readFileSync(file!, "utf8").split("\n").filter(Boolean);
    if (done(lines)) return lines;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the log never held the expected lines");
}

describe("a provider on a closed port", async () => {
  const port = await freePort();
  const h = useGateway(
    () => ({
      providers: { dead: { plugin: "openai", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "sk-dead-closed-port-0001" } },
      models: [{ id: "x/dead", pricing: { prompt: "1", completion: "2" }, endpoints: [{ provider: "dead", model: "m" }] }],
      retry: { ...FAST_RETRY, maxElapsedTime: 200 },
    }),
    { body: { model: "x/dead", messages: [{ role: "user", content: "Hi" }] } },
  );

  test("the request line names the provider and connection_refused per attempt; the notice once; health shows it", async () => {
    await expectError(await h.post(), 503, "upstream_error", "upstream_unavailable");
    await expectError(await h.post(), 503, "upstream_error", "upstream_unavailable");
    const lines = await logLines(h.gw.logFile, (l) => l.filter((x) => x.includes('"msg":"request"') && x.includes("x/dead")).length >= 2);
    const requests = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request" && r.model === "x/dead");
    // The first request tries until the circuit opens; the second finds it open (no attempt, no reasons).
    expect(requests[0].attempts).toBeGreaterThanOrEqual(1);
    for (const r of requests) {
      expect(r.failed_attempts ?? []).toHaveLength(r.attempts);
      for (const f of r.failed_attempts ?? []) expect(f).toEqual({ provider: "dead", reason: "connection_refused" });
    }
    const notices = lines.filter((l) => l.includes("provider dead failed (connection_refused)"));
    expect(notices).toHaveLength(1);
    expect(JSON.parse(notices[0]!).level).toBe("error");
    expect(lines.join("\n")).not.toContain(String(port));
    const health = (await (await fetch(`${h.gw.url}/v1/health/providers`)).json()) as { providers: Array<{ id: string; last_error: any }> };
    const dead = health.providers.find((p) => p.id === "dead")!;
    expect(dead.last_error.reason).toBe("connection_refused");
    expect(Date.parse(dead.last_error.at)).toBeGreaterThan(Date.now() - 60_000);
  });
});

test("gateway serve with JSON logs: every stdout line is JSON (| jq)", async () => {
  assertBuilt();
  const proc = execa("node", [BIN, "serve", "--port", "0", "--log-format", "json"], {
    cwd: tempDir(),
    env: { GATEWAY_SECRET: "cli-test-secret", PATH: process.env.PATH ?? "", OPENAI_API_KEY: "sk-jq-check-0001" },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes('"gateway started"')) resolve();
    });
    void proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${r.stderr}`)));
  });
  proc.kill("SIGTERM");
  const r = await proc;
  const lines = r.stdout.split("\n").filter(Boolean);
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(r.stderr).toContain("gateway listening on");
  expect(r.stdout + r.stderr).not.toContain("sk-jq-check-0001");
});
