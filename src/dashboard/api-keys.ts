/**
 * Keys in the dashboard: list, create (the full key in that answer only), edit (budget, period,
 * rpm, expiry), revoke. The same operations as `gateway keys`; an edit or a revoke drops the
 * server's key cache at once (the store's change counter only reports other connections' commits).
 * Owners and admins see every key of the account; a member only the keys they created (another's
 * reads as unknown); a viewer none (docs/dashboard.md, "Members and roles").
 */
import type { H3, H3Event } from "h3";
import { can, requireRole } from "../access/permissions.js";
import { notFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { createKey } from "../operations/create-key.js";
import { listKeys } from "../operations/list-keys.js";
import { revokeKey } from "../operations/revoke-key.js";
import { updateKey } from "../operations/update-key.js";
import { usdToNanoExact } from "../core/money.js";
import type { Role } from "../core/roles.js";
import type { DashboardUser, KeyChanges, KeyRecord } from "../store/index.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { CreateKeyBody, UpdateKeyBody } from "./schemas.js";
import { param, roleIn, scoper, type Scope } from "./scope.js";

const DAY_MS = 86_400_000;

/**
 * The key `idOrName` if the signed-in user may manage it; any other reads as a missing key. A
 * name is looked for in the account the request acts on (names are unique per account); an id
 * anywhere, so a key of another of the user's accounts is found by its id.
 */
async function manageableKey(gw: Gateway, event: H3Event, scope: Scope): Promise<{ key: KeyRecord; user: DashboardUser; role: Role }> {
  const { user, account } = await scope(event);
  const idOrName = param(event, "id");
  const missing = notFound(`no key with id or name '${idOrName}'`, "key_not_found");
  const byId = async () => {
    const k = await gw.store.findKey(idOrName);
    return k?.id === idOrName ? k : undefined;
  };
  const key = (await gw.store.findKey(idOrName, account)) ?? (await byId());
  if (!key) throw missing;
  const role = await roleIn(gw.store, user, key.account).catch(() => {
    throw missing;
  });
  requireRole(role, "keys.own");
  if (!can(role, "keys.any") && key.createdBy !== user.email) throw missing;
  return { key, user, role };
}

export function keyRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/keys`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "keys.own");
    return reply(event, 200, await listKeys(gw.store, account, gw.now(), can(role, "keys.any") ? undefined : user.email));
  });
  app.post(`${base}/keys`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, CreateKeyBody);
    const { user, account, role } = await scope(event, body.account);
    requireRole(role, "keys.own");
    const now = gw.now();
    const expiresAt = body.expires_in_days ? now + body.expires_in_days * DAY_MS : null;
    const budget = body.budget === undefined ? null : usdToNanoExact(body.budget);
    const k = { name: body.name, account, expiresAt, rpm: body.rpm ?? null, budget, budgetPeriod: body.budget_period, createdBy: user.email };
    return reply(event, 201, await createKey(gw.store, k, now, dashboardBy(event, gw, user)));
  });
  // As `gateway keys update`; a field left out is unchanged, null clears it.
  app.patch(`${base}/keys/:id`, async (event) => {
    const { key, user, role } = await manageableKey(gw, event, scope); // a member edits only their own keys
    const body = await readBody(event, UpdateKeyBody);
    const now = gw.now();
    const changes: KeyChanges = {};
    if (body.budget !== undefined) changes.budget = body.budget === null ? null : usdToNanoExact(body.budget);
    if (body.budget_period !== undefined) changes.budgetPeriod = body.budget_period;
    if (body.rpm !== undefined) changes.rpm = body.rpm;
    if (body.expires_in_days !== undefined) changes.expiresAt = body.expires_in_days === null ? null : now + body.expires_in_days * DAY_MS;
    // A member may tighten, never loosen, limits an owner or admin set on their key (docs/dashboard.md).
    const updated = await updateKey(gw.store, key.id, changes, key.account, now, dashboardBy(event, gw, user), !can(role, "keys.any"));
    gw.auth.invalidate();
    return reply(event, 200, updated);
  });
  app.post(`${base}/keys/:id/revoke`, async (event) => {
    const { key, user } = await manageableKey(gw, event, scope);
    const revoked = await revokeKey(gw.store, key.id, key.account, gw.now(), dashboardBy(event, gw, user));
    gw.auth.invalidate();
    return reply(event, 200, revoked);
  });
}
