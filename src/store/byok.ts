/** BYOK keys: an account's own provider keys, stored sealed (src/access/byok.ts). */

export interface ByokRecord {
  account: string;
  provider: string;
  secret: Buffer;
  last4: string;
  updatedAt: number;
}

export interface ByokStore {
  setByok(record: ByokRecord): Promise<void>;
  /** One account's BYOK keys; without an account, every account's (the start-up check). */
  listByok(account?: string): Promise<ByokRecord[]>;
  removeByok(account: string, provider: string): Promise<boolean>;
}
