/**
 * Keys in the dashboard: list, create (the full key in that answer only), revoke. The same
 * operations as `gateway keys`; a revoke drops the server's key cache at once (the store's
 * change counter only reports other connections' commits).
 */
import type { H3 } from "h3";
import type { Gateway } from "../gateway.js";
import { createKey } from "../operations/create-key.js";
import { listKeys } from "../operations/list-keys.js";
import { revokeKey } from "../operations/revoke-key.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { CreateKeyBody } from "./schemas.js";
import { param, scoper } from "./scope.js";

const DAY_MS = 86_400_000;

export function keyRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  app.get(`${base}/keys`, async (event) => {
    const { account } = await scope(event);
    return reply(event, 200, await listKeys(gw.store, account, gw.now()));
  });
  app.post(`${base}/keys`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, CreateKeyBody);
    const { user, account } = await scope(event, body.account);
    const now = gw.now();
    const expiresAt = body.expires_in_days ? now + body.expires_in_days * DAY_MS : null;
    return reply(
      event,
      201,
      await createKey(gw.store, { name: body.name, account, expiresAt, rpm: body.rpm ?? null, createdBy: user.email }, now, dashboardBy(event, gw, user)),
    );
  });
  // An admin may revoke any account's key; a holder only their own (another's reads as unknown).
  app.post(`${base}/keys/:id/revoke`, async (event) => {
    const { user, account } = await scope(event);
    const revoked = await revokeKey(gw.store, param(event, "id"), user.admin ? undefined : account, gw.now(), dashboardBy(event, gw, user));
    gw.auth.invalidate();
    return reply(event, 200, revoked);
  });
}
