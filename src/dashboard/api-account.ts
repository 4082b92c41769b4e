/**
 * The dashboard's account endpoints: keys, usage, credits, BYOK keys, models and health. Each
 * runs the same operation as its CLI command (src/operations/), scoped to the signed-in
 * user's account (admins: any account). Writes made here drop the server's caches at once:
 * the store's change counter only reports other connections' commits.
 */
import type { H3, H3Event } from "h3";
import { loadSecret } from "../byok.js";
import { forbidden } from "../errors.js";
import type { Gateway } from "../gateway.js";
import { modelEntry } from "../models.js";
import { usdToNanoExact } from "../money.js";
import { addCredits } from "../operations/add-credits.js";
import { byokProviderNames } from "../operations/byok-provider.js";
import { listByok, removeByok, setByok } from "../operations/byok-keys.js";
import { createKey } from "../operations/create-key.js";
import { listKeys } from "../operations/list-keys.js";
import { revokeKey } from "../operations/revoke-key.js";
import { showCredits } from "../operations/show-credits.js";
import { usageReport } from "../operations/usage-report.js";
import { nanoToUsd } from "../money.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { accountFor } from "./scope.js";
import { AddCreditsBody, CreateKeyBody, SetByokBody } from "./schemas.js";
import { currentUser } from "./session.js";

const DAY_MS = 86_400_000;

export function accountRoutes(app: H3, gw: Gateway, base: string): void {
  const trust = gw.config.server.trustProxy;
  const secret = loadSecret(gw.config.database, process.env);
  /** The signed-in user and the account this request acts on; state-changing requests pass the Origin check first. */
  const scope = async (event: H3Event, requested?: string | null) => {
    if (event.req.method !== "GET" && event.req.method !== "HEAD") checkOrigin(event, trust);
    const user = await currentUser(gw, event);
    return { user, account: accountFor(user, requested === undefined ? event.url.searchParams.get("account") : requested) };
  };
  const param = (event: H3Event, name: string) => decodeURIComponent(event.context.params![name]!);

  app.get(`${base}/keys`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, await listKeys(gw.store, account, gw.now()));
  });
  app.post(`${base}/keys`, async (event) => {
    checkOrigin(event, trust);
    const body = await readBody(event, CreateKeyBody);
    const { account } = await scope(event, body.account);
    const now = gw.now();
    const expiresAt = body.expires_in_days ? now + body.expires_in_days * DAY_MS : null;
    return reply(event, 201, await createKey(gw.store, { name: body.name, account, expiresAt, rpm: body.rpm ?? null }, now));
  });
  app.post(`${base}/keys/:id/revoke`, async (event) => {
    const { user, account } = await scope(event);
    const revoked = await revokeKey(gw.store, param(event, "id"), user.admin ? undefined : account, gw.now());
    gw.auth.invalidate();
    return reply(event, 200, revoked);
  });

  app.get(`${base}/usage`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, await usageReport(gw.store, account, gw.now()));
  });

  app.get(`${base}/credits`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, await showCredits(gw.store, account, 100));
  });
  app.post(`${base}/credits`, async (event) => {
    checkOrigin(event, trust);
    const body = await readBody(event, AddCreditsBody);
    const { user } = await scope(event, null);
    if (!user.admin) throw forbidden("Only an admin can add credits.", "admin_only");
    return reply(event, 200, await addCredits(gw.store, body.account, usdToNanoExact(body.amount), { create: false }, gw.now()));
  });
  app.get(`${base}/accounts`, async (event) => {
    const { user } = await scope(event);
    const all = user.admin ? await gw.store.accounts() : (await gw.store.accounts()).filter((a) => a.id === user.account);
    return reply(event, 200, all.map((a) => ({ id: a.id, balance: nanoToUsd(a.balance), keys: a.keys, spend: nanoToUsd(a.spend) })));
  });

  app.get(`${base}/byok`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, { providers: await byokProviderNames(), keys: await listByok(gw.store, account) });
  });
  app.put(`${base}/byok/:provider`, async (event) => {
    checkOrigin(event, trust);
    const body = await readBody(event, SetByokBody);
    const { account } = await scope(event, body.account ?? event.url.searchParams.get("account"));
    const stored = await setByok(gw.store, secret, account, param(event, "provider"), body.key, gw.now());
    gw.byok.invalidate();
    return reply(event, 200, stored);
  });
  app.delete(`${base}/byok/:provider`, async (event) => {
    const { account } = await scope(event);
    const removed = await removeByok(gw.store, account, param(event, "provider"));
    gw.byok.invalidate();
    return reply(event, 200, removed);
  });

  app.get(`${base}/models`, async (event) => {
    const { account } = await scope(event);
    const byok = gw.byok.forAccount(account);
    const data = gw.catalog.list((plugin) => byok.readable(plugin)).map(modelEntry)
      .map((m) => ({ id: m.id, owned_by: m.owned_by, pricing: m.pricing, context_length: m.context_length }));
    return reply(event, 200, { data });
  });
  app.get(`${base}/health`, async (event) => {
    await scope(event);
    const ids = [...gw.instances.values()].filter((i) => i.settings.apiKey !== undefined).map((i) => i.settings.id);
    return reply(event, 200, gw.health.snapshot(gw.now(), ids));
  });
}
