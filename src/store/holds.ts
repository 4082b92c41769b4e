/**
 * In-flight holds, kept in memory by the one process that owns the database: per request,
 * summed per account (against the balance), per key (against the key's budget) and per
 * account or member budget row (docs/limits.md "Budgets"). A crash leaves nothing to undo.
 * Exact as numbers: each sum is kept below 2^53 nano-USD by reserve.
 */
export interface Hold {
  account: string;
  amount: number;
  /** Set when the hold also counts against this key's budget. */
  keyId?: string;
  /** The account and member budget rows (ids) the hold also counts against. */
  budgets?: number[];
}

export class Holds {
  private readonly byId = new Map<string, Hold>();
  private readonly byAccount = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  private readonly byBudget = new Map<number, number>();

  get(id: string | null): Hold | undefined {
    return id ? this.byId.get(id) : undefined;
  }

  account(account: string): number {
    return this.byAccount.get(account) ?? 0;
  }

  key(keyId: string): number {
    return this.byKey.get(keyId) ?? 0;
  }

  budget(id: number): number {
    return this.byBudget.get(id) ?? 0;
  }

  add(id: string, hold: Hold): void {
    this.byId.set(id, hold);
    this.count(hold, 1);
  }

  release(id: string | null): void {
    const hold = this.get(id);
    if (!hold) return;
    this.byId.delete(id!);
    this.count(hold, -1);
  }

  private count(hold: Hold, sign: 1 | -1): void {
    const by = sign * hold.amount;
    bump(this.byAccount, hold.account, by);
    if (hold.keyId) bump(this.byKey, hold.keyId, by);
    for (const b of hold.budgets ?? []) bump(this.byBudget, b, by);
  }
}

function bump<K>(map: Map<K, number>, id: K, by: number): void {
  const next = (map.get(id) ?? 0) + by;
  if (next > 0) map.set(id, next);
  else map.delete(id);
}
