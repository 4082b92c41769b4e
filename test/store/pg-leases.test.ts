/**
 * Leases and group commit on the PostgreSQL store (docs/fleet.md, "Leases", "Group commit"),
 * through the Store interface: three stores on one database, each leasing (`leaseRequests: 4`).
 * What only a networked store has beyond the shared contract (store.cases.ts, which runs with
 * leases off): exactness across stores with leases on, a leased request's release, idle lanes
 * giving their room back, and settlements written in batches.
 */
import { expect, test } from "vitest";
import { openPostgresStore } from "../../src/store/pg/index.js";
import type { Store } from "../../src/store/index.js";
import { ledgerEntry } from "../helpers/ledger-entry.js";
import { rows } from "../helpers/rows.js";
import { createTestDatabase } from "../helpers/services.js";

const W = 1_000;

const entry = (requestId: string, account: string, cost: number) => ledgerEntry({ requestId, account, cost });

async function three(fn: (stores: Store[], db: string) => Promise<void>, now?: () => number) {
  const db = await createTestDatabase();
  const stores = await Promise.all([0, 1, 2].map(() => openPostgresStore(db.url, { leaseRequests: 4, leaseMs: 5_000, now })));
  try {
    // Leases need the change listener (a deaf process admits one hold per request).
    for (const s of stores) await expect.poll(() => s.hearing?.()).toBe(true);
    await fn(stores, db.url);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await db.drop();
  }
}

const scope = () => ({ member: null, at: Date.now() });
const held = async (db: string, account: string) => (await rows<{ held: number }>(db, "SELECT held FROM accounts WHERE id = ?", account))[0]!.held;

test("3N concurrent reserves over three leasing stores on a balance covering N admit exactly N; settled in batches, the balance is exact", async () => {
  await three(async (stores, db) => {
    await stores[0]!.addCredits("a", 30 * W, Date.now());
    const ids = Array.from({ length: 90 }, (_, i) => `r${i}`);
    const ok = await Promise.all(ids.map((id, i) => stores[i % 3]!.reserve(`res_${id}`, "a", W, undefined, scope())));
    expect(ok.filter(Boolean)).toHaveLength(30);
    const [l] = await rows<{ n: number }>(db, "SELECT COUNT(*) AS n FROM holds WHERE id LIKE 'lease\\_%' AND amount > 0");
    expect(Number(l!.n)).toBeGreaterThan(0); // admitted against leases, not one hold each
    const admitted = ids.map((id, i) => ({ id, i })).filter((x) => ok[x.i]);
    await Promise.all(admitted.map(({ id, i }) => stores[i % 3]!.settle(`res_${id}`, entry(id, "a", W - 1), [])));
    expect(await stores[0]!.balance("a")).toBe(BigInt(30 * W - 30 * (W - 1)));
    const [sum] = await rows<{ cost: number; n: number; u: number }>(db, "SELECT SUM(cost) AS cost, COUNT(*) AS n, SUM(uncollected) AS u FROM ledger");
    expect({ cost: Number(sum!.cost), n: Number(sum!.n), u: Number(sum!.u) }).toEqual({ cost: 30 * (W - 1), n: 30, u: 0 });
    // Idle lanes give their unused room back within about a second; their rows go.
    await expect.poll(() => held(db, "a"), { timeout: 5_000 }).toBe(0);
    await expect.poll(async () => (await rows(db, "SELECT id FROM holds")).length, { timeout: 5_000 }).toBe(0);
  });
}, 30_000);

test("a leased request released keeps its part in the lease for the next one; a charge beyond the part is bounded as ever", async () => {
  await three(async ([s], db) => {
    await s!.addCredits("b", 20 * W, Date.now());
    // Busy: the 8th reservation in a second opens a lease of 4 worst cases.
    for (let i = 0; i < 8; i++) expect(await s!.reserve(`res_w${i}`, "b", W, undefined, scope())).toBe(true);
    const [lease] = await rows<{ amount: number }>(db, "SELECT amount FROM holds WHERE id LIKE 'lease\\_%' AND account = ?", "b");
    expect(lease!.amount).toBe(4 * W);
    await s!.release("res_w7"); // leased: nothing moves in the database
    expect((await rows<{ amount: number }>(db, "SELECT amount FROM holds WHERE id LIKE 'lease\\_%' AND account = ?", "b"))[0]!.amount).toBe(4 * W);
    expect(await s!.reserve("res_w8", "b", W, undefined, scope())).toBe(true);
    // A charge of 3 W against a part of W: the rest is uncollected only if others hold it; here the room is there.
    await s!.settle("res_w8", entry("w8", "b", 3 * W), []);
    for (let i = 0; i < 7; i++) await s!.settle(`res_w${i}`, entry(`w${i}`, "b", W), []);
    expect(await s!.balance("b")).toBe(BigInt(20 * W - 10 * W));
    await expect.poll(() => held(db, "b"), { timeout: 5_000 }).toBe(0);
  });
}, 30_000);

test("a key budget's readout counts what requests hold, not the leased room nobody uses yet", async () => {
  // A clock held still: eight reserves are one second's traffic however slow the machine is.
  const clock = Date.now();
  await three(
    async ([s], db) => {
      await s!.addCredits("c", 100 * W, Date.now());
      const budget = { keyId: "kc", limit: 100n * BigInt(W), since: 0 };
      await s!.createKey({
        id: "kc",
        name: "kc",
        account: "c",
        hash: "h-kc",
        last4: "abcd",
        createdAt: Date.now(),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
        rpm: null,
        budget: budget.limit,
        budgetPeriod: "total",
      });
      // Seven holds of their own, then the eighth opens a lease of 4 W of which it uses one.
      for (let i = 0; i < 8; i++) expect(await s!.reserve(`res_k${i}`, "c", W, budget, scope())).toBe(true);
      expect((await rows<{ held: number }>(db, "SELECT held FROM keys WHERE id = ?", "kc"))[0]!.held).toBe(11 * W);
      expect(await s!.keyBudgetUse("kc", 0)).toEqual({ spent: 0n, held: 8 * W });
    },
    () => clock,
  );
}, 30_000);
