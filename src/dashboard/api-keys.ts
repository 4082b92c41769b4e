/**
 * Keys in the dashboard: list, create (the full key in that answer only), revoke. The same
 * operations as `gateway keys`; a revoke drops the server's key cache at once (the store's
 * change counter only reports other connections' commits). Owners and admins see every key of
 * the account; a member only the keys they created (another's reads as unknown); a viewer none
 * (docs/dashboard.md, "Members and roles").
 */
import type { H3, H3Event } from "h3";
import { can, requireRole } from "../access/permissions.js";
import { notFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { createKey } from "../operations/create-key.js";
import { listKeys } from "../operations/list-keys.js";
import { revokeKey } from "../operations/revoke-key.js";
import type { KeyRecord } from "../store/index.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { CreateKeyBody } from "./schemas.js";
import { param, roleIn, scoper } from "./scope.js";
import { currentUser } from "./session.js";

const DAY_MS = 86_400_000;

/** The key `idOrName` if the signed-in user may manage it; any other reads as a missing key. */
async function manageableKey(gw: Gateway, event: H3Event): Promise<KeyRecord> {
  checkOrigin(event, gw.config);
  const user = await currentUser(gw, event);
  const idOrName = param(event, "id");
  const missing = notFound(`no key with id or name '${idOrName}'`, "key_not_found");
  const key = await gw.store.findKey(idOrName);
  if (!key) throw missing;
  const role = await roleIn(gw.store, user, key.account).catch(() => {
    throw missing;
  });
  requireRole(role, "keys.own");
  if (!can(role, "keys.any") && key.createdBy !== user.email) throw missing;
  return key;
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
    return reply(event, 201, await createKey(gw.store, { name: body.name, account, expiresAt, rpm: body.rpm ?? null, createdBy: user.email }, now));
  });
  app.post(`${base}/keys/:id/revoke`, async (event) => {
    const key = await manageableKey(gw, event);
    const revoked = await revokeKey(gw.store, key.id, key.account, gw.now());
    gw.auth.invalidate();
    return reply(event, 200, revoked);
  });
}
