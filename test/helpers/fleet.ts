/**
 * Several gateways in one test process, each with its own SQLite file, sharing one Redis
 * (URL + prefix): the fleet of docs/fleet.md as far as Redis goes. A key is shared by
 * inserting the same record (same id, same hash) into every store, as one PostgreSQL would.
 */
import { generateKey, hashKey, newKeyId } from "../../src/access/keys.js";
import type { KeyRecord } from "../../src/store/index.js";
import { startGateway, type TestGateway } from "./gateway.js";

export async function startFleet(n: number, config: Record<string, unknown>): Promise<TestGateway[]> {
  const gateways: TestGateway[] = [];
  for (let i = 0; i < n; i++) gateways.push(await startGateway(config));
  return gateways;
}

/** One key, the same in every store, with credits for its account everywhere. */
export async function sharedKey(gateways: TestGateway[], opts: { rpm?: number; account?: string } = {}): Promise<string> {
  const key = generateKey();
  const account = opts.account ?? "default";
  const record: KeyRecord = {
    id: newKeyId(),
    name: `fleet-${newKeyId()}`,
    account,
    hash: hashKey(key),
    last4: key.slice(-4),
    createdAt: Date.now(),
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    rpm: opts.rpm ?? null,
  };
  for (const gw of gateways) {
    await gw.store.ensureAccount(account, Date.now());
    await gw.store.createKey(record);
    await gw.addCredits("100", account);
  }
  return key;
}

interface HealthBody {
  status: string;
  limits: string;
  providers: Array<{ id: string; status: string; circuit: string }>;
}

export async function healthOf(gw: TestGateway): Promise<HealthBody> {
  const res = await fetch(`${gw.url}/v1/health/providers`);
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
  return (await res.json()) as HealthBody;
}

/** Polls until `check` holds; returns how long it took, or throws after `ms`. */
export async function waitFor(what: string, check: () => Promise<boolean>, ms = 5_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what}: not within ${ms} ms`);
}
