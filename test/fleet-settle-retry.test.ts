/**
 * Issue "What an attacker found", item 2 (docs/fleet.md, "Settlement that fails"): streams are
 * delivered in full while PostgreSQL is cut; their settlement is retried until it lands, once.
 * The gateway reaches PostgreSQL through a relay the test cuts and restores; the ledger and the
 * balance are read from PostgreSQL directly.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { stream } from "./helpers/openai-wire.js";
import { ledgerEntry } from "./helpers/ledger-entry.js";
import { startRelay, type Relay } from "./helpers/relay.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

let fake: FakeUpstream;
let db: TestDatabase;
let relay: Relay;
let gw: TestGateway;
let direct: pg.Client;

beforeAll(async () => {
  fake = await startFakeUpstream(() => stream(["a ", "b ", "c ", "d ", "e ", "f "], { prompt_tokens: 12, completion_tokens: 6 }, { delayMs: 150 }));
  db = await createTestDatabase();
  relay = await startRelay(db.url);
  gw = await startGateway({ ...openaiConfig(fake.url), database: relay.url });
  direct = new pg.Client({ connectionString: db.url });
  await direct.connect();
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await direct?.end();
  await relay?.close();
  await fake?.close();
  await db?.drop();
});

/** One stream read to its end: the request id and whether `[DONE]` came. */
async function streamOnce(key: string): Promise<{ id: string; done: boolean }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { id: res.headers.get("x-request-id")!, done: text.includes("data: [DONE]") };
}

const balance = async () => BigInt((await direct.query("SELECT balance FROM accounts WHERE id = 'default'")).rows[0].balance);

test("streams delivered while PostgreSQL is cut are billed once each when it returns", async () => {
  const key = await gw.createKey();
  await gw.addCredits("10");
  await streamOnce(key); // warm: the key cached, the pool connected
  await expect.poll(async () => (await direct.query("SELECT count(*)::int AS n FROM ledger")).rows[0].n).toBe(1);
  await direct.query("DELETE FROM ledger");
  const before = await balance();
  const seen = fake.requests.length;
  const streams = Array.from({ length: 8 }, () => streamOnce(key));
  // Every stream admitted (its hold taken) and started upstream, none finished: then the cut.
  await expect.poll(() => fake.requests.length, { interval: 10 }).toBe(seen + 8);
  await relay.cut();
  const delivered = await Promise.all(streams);
  expect(delivered.every((s) => s.done)).toBe(true);
  await new Promise((r) => setTimeout(r, 1_500)); // settlements fail and wait meanwhile
  expect((await direct.query("SELECT count(*)::int AS n FROM ledger")).rows[0].n).toBe(0);
  await relay.restore();

  const ids = delivered.map((s) => s.id);
  await expect
    .poll(async () => (await direct.query("SELECT count(*)::int AS n FROM ledger WHERE request_id = ANY($1)", [ids])).rows[0].n, { timeout: 15_000 })
    .toBe(ids.length);
  const { rows } = await direct.query("SELECT request_id, count(*)::int AS n, sum(cost)::text AS cost FROM ledger GROUP BY request_id");
  expect(rows.map((r) => r.request_id).sort()).toEqual([...ids].sort());
  expect(rows.every((r) => r.n === 1)).toBe(true);
  const charged = rows.reduce((sum, r) => sum + BigInt(r.cost), 0n);
  expect(charged).toBeGreaterThan(0n);
  expect(before - (await balance())).toBe(charged);
  // Nothing left held or journaled: the holds were released with their settlements (or expired).
  expect((await direct.query("SELECT count(*)::int AS n FROM inflight")).rows[0].n).toBe(0);
}, 40_000);

test("a settlement repeated for the same request id bills nothing twice", async () => {
  const key = await gw.createKey();
  const { id } = await streamOnce(key);
  await expect.poll(async () => (await direct.query("SELECT count(*)::int AS n FROM ledger WHERE request_id = $1", [id])).rows[0].n).toBe(1);
  const before = await balance();
  const row = (await direct.query("SELECT * FROM ledger WHERE request_id = $1", [id])).rows[0];
  // The same settlement again, as a retry after a commit whose answer was lost would send it.
  await gw.store.settle(
    null,
    ledgerEntry({
      requestId: id,
      createdAt: Number(row.created_at),
      account: row.account,
      keyId: row.key_id,
      model: row.model,
      provider: row.provider,
      promptTokens: 12,
      completionTokens: 6,
      cost: Number(row.list_cost),
    }),
    [],
  );
  expect((await direct.query("SELECT count(*)::int AS n FROM ledger WHERE request_id = $1", [id])).rows[0].n).toBe(1);
  expect(await balance()).toBe(before);
}, 20_000);
