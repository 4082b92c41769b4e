/**
 * BYOK keys, encrypted at rest with AES-256-GCM. The secret is GATEWAY_SECRET, else a
 * random key file beside the database (`<db>.secret`, mode 0600). The account and
 * provider are bound in as associated data, so a ciphertext cannot be moved to another row.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { invalidRequest, UsageError } from "../core/errors.js";
import { isPostgresUrl, isUrl } from "../core/database-url.js";
import type { Store } from "../store/index.js";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * With PostgreSQL every process must open every BYOK key, so the secret cannot be a file beside
 * the database: GATEWAY_SECRET, the same everywhere (docs/fleet.md). Refused in one line.
 */
export function requireFleetSecret(database: string, env: NodeJS.ProcessEnv): void {
  if (isPostgresUrl(database) && !env.GATEWAY_SECRET) {
    throw new UsageError("GATEWAY_SECRET must be set (64 hex characters, the same on every process) when the database is PostgreSQL");
  }
}

export function loadSecret(dbFile: string, env: NodeJS.ProcessEnv): Buffer {
  if (env.GATEWAY_SECRET) return fromEnv(env.GATEWAY_SECRET);
  if (dbFile === ":memory:") return randomBytes(32);
  // `<url>.secret` would be a file under a `postgres:` directory, and no other process could read it.
  if (isUrl(dbFile)) throw new UsageError("GATEWAY_SECRET must be set (64 hex characters, the same on every process) when the database is a URL");
  const file = secretFileOf(dbFile);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return readSecretFile(file);
}

/**
 * The secret this database's values were sealed with, read without creating anything (`doctor`,
 * `db copy`): GATEWAY_SECRET when set, else the `<db>.secret` file when there is one.
 */
export function existingSecret(database: string, env: NodeJS.ProcessEnv): Buffer | undefined {
  if (env.GATEWAY_SECRET) return fromEnv(env.GATEWAY_SECRET);
  if (database === ":memory:" || isUrl(database)) return undefined;
  const file = secretFileOf(database);
  return existsSync(file) ? readSecretFile(file) : undefined;
}

/** The key file beside a SQLite database. */
export const secretFileOf = (dbFile: string): string => `${dbFile}.secret`;

/** GATEWAY_SECRET is any string (64 hex characters advised): its SHA-256 is the key. */
const fromEnv = (value: string): Buffer => createHash("sha256").update(value).digest();

/** A `<db>.secret` file: 64 hex digits, the key itself. */
export function readSecretFile(file: string): Buffer {
  const secret = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
  // A truncated or hand-edited file would otherwise surface later as "Invalid key length".
  if (secret.length !== 32) throw new Error(`${file} does not hold a 256-bit key (64 hex digits); restore it, or set GATEWAY_SECRET`);
  return secret;
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

/** A stored key the current secret cannot open: the secret changed (or the row was damaged). */
const byokUnreadable = (provider: string) =>
  invalidRequest(
    `This account's BYOK key for provider ${provider} cannot be read (the gateway's encryption secret changed). Set it again with 'gateway byok set ${provider}'.`,
    "byok_key_unreadable",
  );

/** One account's BYOK keys, as routing and listing see them. */
export class AccountKeys {
  constructor(
    private keys: Map<string, string>,
    private unreadable: ReadonlySet<string>,
  ) {}

  /**
   * The key for a plugin, for a request about to use it. An unreadable key is a 400, not a
   * fallback: routing around it would quietly charge the balance the account meant to spare.
   */
  get(plugin: string): string | undefined {
    if (this.unreadable.has(plugin)) throw byokUnreadable(plugin);
    return this.keys.get(plugin);
  }

  /** For listing: a key that cannot be read serves nothing, so its models are not offered. */
  readable(plugin: string): string | undefined {
    return this.keys.get(plugin);
  }
}

/** Decrypted keys per account, held in memory until the store changes. */
export class ByokKeys {
  private cache = new Map<string, AccountKeys>();

  constructor(
    private store: Store,
    private secret: Buffer,
  ) {}

  /** Cached until the store changes: the hot path reads memory (the first request of an account reads the store). */
  async forAccount(account: string): Promise<AccountKeys> {
    return this.cache.get(account) ?? (await this.load(account));
  }

  private async load(account: string): Promise<AccountKeys> {
    let keys = this.cache.get(account);
    if (!keys) {
      const readable = new Map<string, string>();
      const unreadable = new Set<string>();
      for (const r of await this.store.listByok(account)) {
        const key = this.open(r.account, r.provider, r.secret);
        if (key === undefined) unreadable.add(r.provider);
        else readable.set(r.provider, key);
      }
      keys = new AccountKeys(readable, unreadable);
      this.cache.set(account, keys);
    }
    return keys;
  }

  /** Every stored key the current secret cannot open (said once at start); never key material. */
  async unreadable(): Promise<Array<{ account: string; provider: string }>> {
    return (await this.store.listByok())
      .filter((r) => this.open(r.account, r.provider, r.secret) === undefined)
      .map((r) => ({ account: r.account, provider: r.provider }));
  }

  invalidate(): void {
    this.cache.clear();
  }

  /** Encrypts a key for storing (the dashboard's BYOK Save), with the secret this gateway reads them with. */
  seal(account: string, provider: string, plaintext: string): Buffer {
    return encrypt(this.secret, account, provider, plaintext);
  }

  private open(account: string, provider: string, blob: Buffer): string | undefined {
    try {
      return decrypt(this.secret, account, provider, blob);
    } catch {
      return undefined; // wrong secret (GCM tag mismatch) or a damaged row: the caller reports it
    }
  }
}
