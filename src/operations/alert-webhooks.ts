/**
 * Alert webhooks (`gateway alerts add|list|remove`, docs/alerts.md): a URL that receives an
 * account's alerts, or every account's (no account: an operator's receiver). The signing secret
 * is sealed before it is stored and shown only once, when `add` generated it.
 */
import { randomUUID } from "node:crypto";
import { generateWebhookSecret } from "../alerts/secret.js";
import { invalidRequest, notFound } from "../core/errors.js";
import type { Store, Webhook } from "../store/index.js";
import { auditNote, type AuditActor } from "./audit-note.js";

/** Seals a webhook's secret with the gateway's secret (src/alerts/secret.ts). */
export type SealWebhook = (webhookId: string, plaintext: string) => Buffer;

const view = (w: Pick<Webhook, "id" | "account" | "url" | "createdAt">) => ({
  id: w.id,
  account: w.account,
  url: w.url,
  created_at: new Date(w.createdAt).toISOString(),
});

/**
 * A webhook as the audit log records it (docs/audit.md): its account and its URL without the
 * query string or fragment (a receiver may take a token there), never its secret, not even hashed.
 */
const audited = (w: Pick<Webhook, "account" | "url">) => {
  const u = new URL(w.url);
  return { account: w.account, url: `${u.origin}${u.pathname}` };
};

/** http(s) only; loopback and private hosts are allowed (self-hosted receivers). */
function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest("url: must be an absolute http:// or https:// URL", null, "url");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalidRequest("url: must be an http:// or https:// URL", null, "url");
  if (parsed.username || parsed.password) throw invalidRequest("url: must not carry credentials (the body is signed with the secret instead)", null, "url");
  return parsed.href;
}

export async function addWebhook(store: Store, seal: SealWebhook, o: { url: string; secret?: string; account: string | null }, now: number, by: AuditActor) {
  const url = checkUrl(o.url);
  const given = o.secret?.trim();
  if (o.secret !== undefined && (!given || given.length < 16)) throw invalidRequest("secret: at least 16 characters", null, "secret");
  const plain = given ?? generateWebhookSecret();
  if (o.account !== null) await store.ensureAccount(o.account, now);
  const id = `wh_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const hook = { id, account: o.account, url, secret: seal(id, plain), createdAt: now };
  const note = auditNote(by, now, { action: "alert.webhook.add", account: o.account, target: id, before: null, after: audited(hook) });
  await store.audited(note).addWebhook(hook);
  // Shown once, and only when generated: a secret the operator chose is already theirs.
  return { ...view(hook), ...(given === undefined && { secret: plain }) };
}

/** Every webhook, or those of one account (an account's own, not the operator's every-account ones). */
export async function listWebhooks(store: Store, account?: string) {
  const all = await store.listWebhooks();
  return (account === undefined ? all : all.filter((w) => w.account === account)).map(view);
}

export async function removeWebhook(store: Store, id: string, now: number, by: AuditActor, account?: string) {
  const hook = (await store.listWebhooks()).find((w) => w.id === id && (account === undefined || w.account === account));
  const note = hook && auditNote(by, now, { action: "alert.webhook.remove", account: hook.account, target: id, before: audited(hook), after: null });
  if (!note || !(await store.audited(note).removeWebhook(id, now))) throw notFound(`no alert webhook '${id}'`, "webhook_not_found");
  return { id, removed: true };
}
