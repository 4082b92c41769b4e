/**
 * An account's own provider keys (`gateway byok set|list|remove`, the dashboard's BYOK page):
 * encrypted at rest, shown only as their last four characters.
 */
import { last4 } from "../access/byok.js";
import { invalidRequest, notFound } from "../core/errors.js";
import type { ByokRecord, Store } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";
import { checkByokProvider } from "./byok-provider.js";

const view = (r: Pick<ByokRecord, "provider" | "account" | "last4" | "updatedAt">) => ({
  provider: r.provider,
  account: r.account,
  masked: `…${r.last4}`,
  updated_at: new Date(r.updatedAt).toISOString(),
});

/** Encrypts a key for its row (src/access/byok.ts): the CLI with the secret it loads, the server with the one it reads keys with. */
export type Seal = (account: string, provider: string, plaintext: string) => Buffer;

export async function setByok(store: Store, seal: Seal, account: string, provider: string, key: string, now: number, by: AuditActor) {
  await checkByokProvider(provider);
  if (!key.trim()) throw invalidRequest("key: must not be empty", null, "key");
  const plain = key.trim();
  await store.ensureAccount(account, now);
  const record = { account, provider, secret: seal(account, provider, plain), last4: last4(plain), updatedAt: now };
  const old = (await store.listByok(account)).find((r) => r.provider === provider);
  // The masked form only (the last four characters the dashboard shows), never the key.
  const note = auditNote(by, now, {
    action: "byok.set",
    account,
    target: `${account}/${provider}`,
    before: old ? { provider, masked: `…${old.last4}` } : null,
    after: { provider, masked: `…${record.last4}` },
  });
  await store.audited(note).setByok(record);
  return view(record);
}

export async function listByok(store: Store, account: string) {
  return (await store.listByok(account)).map(view);
}

export async function removeByok(store: Store, account: string, provider: string, now: number, by: AuditActor) {
  await checkByokProvider(provider);
  const old = (await store.listByok(account)).find((r) => r.provider === provider);
  const before = old ? { provider, masked: `…${old.last4}` } : null;
  const note = auditNote(by, now, { action: "byok.remove", account, target: `${account}/${provider}`, before, after: null });
  if (!(await store.audited(note).removeByok(account, provider))) throw notFound(`'${account}' has no ${provider} key`, "byok_key_not_found");
  return { provider, account, removed: true };
}
