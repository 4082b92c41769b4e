/**
 * Issue "What an attacker found", item 1 (docs/fleet.md, "Change propagation"): the LISTEN
 * connection dies without the network closing it (a NAT forgetting the flow). The gateway's
 * connection to PostgreSQL goes through a relay that black-holes only that connection; a key is
 * revoked by a second gateway on the same database; the first must refuse it within the bound
 * docs/fleet.md gives (DEAF_MS), then reconnect its listener and hear changes again.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEAF_MS } from "../src/store/pg/watch.js";
import { hashKey } from "../src/access/keys.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { startRelay, type Relay } from "./helpers/relay.js";
import { createTestDatabase, type TestDatabase } from "./helpers/services.js";

let fake: FakeUpstream;
let db: TestDatabase;
let relay: Relay;
let behind: TestGateway; // reaches PostgreSQL through the relay
let other: TestGateway; // the "other process" that revokes

beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
  db = await createTestDatabase();
  relay = await startRelay(db.url);
  other = await startGateway({ ...openaiConfig(fake.url), database: db.url });
  behind = await startGateway({ ...openaiConfig(fake.url), database: relay.url });
  await other.addCredits("10");
}, 30_000);

afterAll(async () => {
  await behind?.close();
  await other?.close();
  await relay?.close();
  await fake?.close();
  await db?.drop();
});

const ask = (key: string) =>
  fetch(`${behind.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
  }).then(async (r) => (await r.arrayBuffer(), r.status));

async function revoke(key: string): Promise<void> {
  const record = await other.store.findKeyByHash(hashKey(key));
  await other.store.revokeKey(record!.id, Date.now());
}

/** Polls until the gateway refuses `key`; returns how long that took. */
async function refusedWithin(key: string, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if ((await ask(key)) === 401) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still served ${ms} ms after the revocation`);
}

test("a silently dead LISTEN connection: a revoked key is refused within the documented bound, then the listener reconnects", async () => {
  const key = await other.createKey();
  expect(await ask(key)).toBe(200); // cached from now on
  expect(relay.silence("LISTEN gateway_changes")).toBe(1);
  // Past the last heartbeat heard, so the revocation's notice is the one that is lost.
  await new Promise((r) => setTimeout(r, 300));
  await revoke(key);
  const took = await refusedWithin(key, DEAF_MS + 2_000);
  expect(took).toBeLessThanOrEqual(DEAF_MS + 1_000);

  // The listener reconnected (a new connection, not black-holed): notices arrive again, within 1 s.
  const second = await other.createKey();
  await expect.poll(() => ask(second), { timeout: 10_000, interval: 200 }).toBe(200);
  await new Promise((r) => setTimeout(r, 2 * DEAF_MS)); // well past any deaf period: the cache is trusted again
  expect(await ask(second)).toBe(200);
  await revoke(second);
  expect(await refusedWithin(second, 1_000)).toBeLessThan(1_000);
}, 40_000);
