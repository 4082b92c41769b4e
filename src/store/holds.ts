/**
 * In-flight holds, kept in memory by the one process that owns the database: per request,
 * summed per account (against the balance) and per key (against the key's budget). A crash
 * leaves nothing to undo. Exact as numbers: each sum is kept below 2^53 nano-USD by reserve.
 */
export interface Hold {
  account: string;
  amount: number;
  /** Set when the hold also counts against this key's budget. */
  keyId?: string;
}

export class Holds {
  private readonly byId = new Map<string, Hold>();
  private readonly byAccount = new Map<string, number>();
  private readonly byKey = new Map<string, number>();

  get(id: string | null): Hold | undefined {
    return id ? this.byId.get(id) : undefined;
  }

  account(account: string): number {
    return this.byAccount.get(account) ?? 0;
  }

  key(keyId: string): number {
    return this.byKey.get(keyId) ?? 0;
  }

  add(id: string, hold: Hold): void {
    this.byId.set(id, hold);
    bump(this.byAccount, hold.account, hold.amount);
    if (hold.keyId) bump(this.byKey, hold.keyId, hold.amount);
  }

  release(id: string | null): void {
    const hold = this.get(id);
    if (!hold) return;
    this.byId.delete(id!);
    bump(this.byAccount, hold.account, -hold.amount);
    if (hold.keyId) bump(this.byKey, hold.keyId, -hold.amount);
  }
}

function bump(map: Map<string, number>, id: string, by: number): void {
  const next = (map.get(id) ?? 0) + by;
  if (next > 0) map.set(id, next);
  else map.delete(id);
}
