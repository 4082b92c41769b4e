/**
 * BYOK keys, encrypted at rest with AES-256-GCM. The secret is GATEWAY_SECRET, else a
 * random key file beside the database (`<db>.secret`, mode 0600). The account and
 * provider are bound in as associated data, so a ciphertext cannot be moved to another row.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Store } from "./store/index.js";

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function loadSecret(dbFile: string, env: NodeJS.ProcessEnv): Buffer {
  if (env.GATEWAY_SECRET) return createHash("sha256").update(env.GATEWAY_SECRET).digest();
  const file = `${dbFile}.secret`;
  if (dbFile === ":memory:") return randomBytes(32);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, "utf8").trim(), "hex");
}

const aad = (account: string, provider: string) => Buffer.from(`${account}\u0000${provider}`);

export function encrypt(secret: Buffer, account: string, provider: string, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", secret, iv).setAAD(aad(account, provider));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function decrypt(secret: Buffer, account: string, provider: string, blob: Buffer): string {
  const decipher = createDecipheriv("aes-256-gcm", secret, blob.subarray(0, IV_BYTES)).setAAD(aad(account, provider));
  decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
}

export const last4 = (key: string): string => key.slice(-4);

/** Decrypted keys per account, held in memory until the store changes. */
export class ByokKeys {
  private cache = new Map<string, Map<string, string>>();

  constructor(private store: Store, private secret: Buffer) {}

  forAccount(account: string): Map<string, string> {
    let keys = this.cache.get(account);
    if (!keys) {
      keys = new Map(this.store.listByok(account).map((r) => [r.provider, decrypt(this.secret, account, r.provider, r.secret)]));
      this.cache.set(account, keys);
    }
    return keys;
  }

  invalidate(): void {
    this.cache.clear();
  }
}
