/**
 * Usage attribution by tag (docs/usage.md): requests through the gateway carry tags in
 * `X-Gateway-Tags` and in `metadata` (chat completions, Responses), the header winning per
 * name; `gateway usage --by tag:team|member|key|model|endpoint|day --since --until --json`
 * sums them exactly over the range (requests before and after it left out), `--csv` prints the
 * same rows; a malformed header is a 400 before any upstream call; `metadata` still reaches the
 * provider exactly as the client sent it. Runs on SQLite and on PostgreSQL (STORE_TESTS).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { generateKey, hashKey, newKeyId } from "../src/access/keys.js";
import { gateway } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

let gw: TestGateway;
let fake: FakeUpstream;
let alice: { id: string; key: string };
let cli: { id: string; key: string };
let since: string;
let until: string;
const DAY = new Date().toISOString().slice(0, 10);

// Every answer reports 1000 prompt + 100 completion tokens: a request on acme/a costs
// 1000 × $1 + 100 × $2 per 1M = $0.0012, on acme/b 1000 × $3 + 100 × $5 per 1M = $0.0035.
const A = { prompt: 1000, completion: 100, cost: 1_200_000n };
const B = { prompt: 1000, completion: 100, cost: 3_500_000n };

async function makeKey(name: string, createdBy: string | null) {
  const key = generateKey();
  recordSecret(key);
  const id = newKeyId();
  await gw.store.createKey({
    id,
    name,
    account: "tags",
    hash: hashKey(key),
    last4: key.slice(-4),
    createdAt: Date.now(),
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    rpm: null,
    createdBy,
  });
  return { id, key };
}

const post = (key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const chat = (key: string, model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(key, "/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }], ...extra }, headers);

async function ok(res: Promise<Response>): Promise<void> {
  const r = await res;
  expect(r.status, await r.clone().text()).toBe(200);
  await r.text();
}

const pause = () => new Promise((r) => setTimeout(r, 25));
const usage = (...args: string[]) => gateway(["--db", gw.db, "usage", "--account", "tags", ...args], { env: { GATEWAY_SECRET: "test-secret" } });
const usd = (nano: bigint) => (Number(nano) / 1e9).toString(); // exact for these small sums
const row = (group: string | null, n: number, t: { prompt: number; completion: number }, cost: bigint) => ({
  group,
  requests: n,
  prompt_tokens: n * t.prompt,
  completion_tokens: n * t.completion,
  cost: usd(cost),
});

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("tagged", { prompt_tokens: 1000, completion_tokens: 100 }));
  gw = await startGateway({
    server: { compat: "openai" },
    providers: {
      local: { plugin: "openai-compatible", baseUrl: `${fake.url}/v1`, apiKey: "sk-tags-upstream-secret-7777" },
      own: { plugin: "openai", baseUrl: `${fake.url}/v1`, apiKey: "sk-tags-platform-secret-8888" },
    },
    models: [
      { id: "acme/a", pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "local", model: "a-model" }] },
      { id: "acme/b", pricing: { prompt: "3", completion: "5" }, max_output: 1000, endpoints: [{ provider: "local", model: "b-model" }] },
      { id: "acme/o", pricing: { prompt: "1", completion: "2" }, max_output: 1000, endpoints: [{ provider: "own", model: "o-model" }] },
    ],
  });
  await gw.store.ensureAccount("tags", Date.now());
  await gw.addCredits("10", "tags");
  alice = await makeKey("alice-key", "alice@example.com");
  cli = await makeKey("cli-key", null);

  // Before the range: left out.
  await ok(chat(alice.key, "acme/a", {}, { "x-gateway-tags": "team=early" }));
  await pause();
  since = new Date().toISOString();
  await pause();
  // In the range.
  await ok(chat(alice.key, "acme/a", {}, { "x-gateway-tags": "team=search, env=prod" })); // team search
  await ok(chat(alice.key, "acme/a", { metadata: { team: "ads" } })); // team ads
  await ok(chat(cli.key, "acme/b", { metadata: { team: "ads", env: "dev" } }, { "x-gateway-tags": "team=search" })); // the header wins: search
  await ok(post(cli.key, "/v1/responses", { model: "acme/a", input: "hi", metadata: { team: "ads" } })); // team ads, endpoint responses
  await ok(chat(cli.key, "acme/b")); // no tags
  await pause();
  until = new Date().toISOString();
  await pause();
  // After the range: left out.
  await ok(chat(cli.key, "acme/b", {}, { "x-gateway-tags": "team=late" }));
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

test("--by tag:team sums each tag value exactly over the range; the header wins over metadata per name", async () => {
  const r = await usage("--by", "tag:team", "--since", since, "--until", until, "--json");
  expect(r.exitCode, r.stderr).toBe(0);
  // search: acme/a by header, acme/b with the header over metadata's ads; ads: chat and Responses metadata; none: acme/b.
  expect(r.json).toEqual([row("search", 2, A, A.cost + B.cost), row(null, 1, B, B.cost), row("ads", 2, A, 2n * A.cost)]);
  const env = await usage("--by", "tag:env", "--since", since, "--until", until, "--json");
  expect(env.json).toEqual([row(null, 3, A, 2n * A.cost + B.cost), row("dev", 1, B, B.cost), row("prod", 1, A, A.cost)]);
  // Without a range, the requests before and after it count too.
  const all = await usage("--by", "tag:team", "--json");
  expect(all.json.map((g: { group: string | null }) => g.group).sort()).toEqual(["ads", "early", "late", "search", null].sort());
}, 90_000);

test("--by member, key, model, endpoint and day: exact sums over the same range", async () => {
  const by = async (g: string) => {
    const r = await usage("--by", g, "--since", since, "--until", until, "--json");
    expect(r.exitCode, r.stderr).toBe(0);
    return r.json;
  };
  const [member, key, model, endpoint, day] = await Promise.all(["member", "key", "model", "endpoint", "day"].map(by));
  expect(member).toEqual([row(null, 3, A, 2n * B.cost + A.cost), row("alice@example.com", 2, A, 2n * A.cost)]);
  expect(key).toEqual([row(cli.id, 3, A, 2n * B.cost + A.cost), row(alice.id, 2, A, 2n * A.cost)]);
  expect(model).toEqual([row("acme/b", 2, B, 2n * B.cost), row("acme/a", 3, A, 3n * A.cost)]);
  expect(endpoint).toEqual([row("chat", 4, A, 2n * A.cost + 2n * B.cost), row("responses", 1, A, A.cost)]);
  expect(day).toEqual([row(DAY, 5, A, 3n * A.cost + 2n * B.cost)]);
}, 90_000);

test("--csv prints the --json rows, row for row, under a header line", async () => {
  const checks = ["tag:team", "member", "model"].map(async (g) => {
    const [json, csv] = await Promise.all([
      usage("--by", g, "--since", since, "--until", until, "--json"),
      usage("--by", g, "--since", since, "--until", until, "--csv"),
    ]);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const [head, ...lines] = csv.stdout.trimEnd().split("\n");
    expect(head).toBe("group,requests,prompt_tokens,completion_tokens,cost");
    expect(lines).toEqual(
      (json.json as Array<Record<string, unknown>>).map((r) => [r.group ?? "", r.requests, r.prompt_tokens, r.completion_tokens, r.cost].join(",")),
    );
  });
  await Promise.all(checks);
  const bad = await usage("--by", "colour");
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toContain("tag:NAME, member, key, model, endpoint, tool or day");
}, 90_000);

test("a malformed X-Gateway-Tags is a 400 in the endpoint's error shape, before any upstream call", async () => {
  const before = fake.requests.length;
  for (const header of [
    "team",
    "team=",
    "=search",
    "team=a,team=b",
    "a b=c",
    Array.from({ length: 17 }, (_, i) => `t${i}=v`).join(","),
    `t=${"x".repeat(513)}`,
  ]) {
    const res = await chat(alice.key, "acme/a", {}, { "x-gateway-tags": header });
    expect(res.status, header).toBe(400);
    const body = (await res.json()) as { error: { type: string; code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_tags", param: "X-Gateway-Tags" });
  }
  const tooMany = await chat(alice.key, "acme/a", { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) });
  expect(tooMany.status).toBe(400);
  expect(((await tooMany.json()) as { error: { param: string } }).error.param).toBe("metadata");
  const longName = await chat(alice.key, "acme/a", { metadata: { ["n".repeat(65)]: "v" } });
  expect(longName.status).toBe(400);
  expect(fake.requests.length).toBe(before);
});

test("metadata reaches the provider as the client sent it; the tags header does not", async () => {
  const before = fake.requests.length;
  await ok(chat(alice.key, "acme/o", { metadata: { team: "ads", purpose: "check" } }, { "x-gateway-tags": "team=search" }));
  const sent = fake.requests.slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.body.metadata).toEqual({ team: "ads", purpose: "check" });
  expect(sent[0]!.headers["x-gateway-tags"]).toBeUndefined();
});
