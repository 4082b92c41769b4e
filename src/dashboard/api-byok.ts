/** BYOK keys in the dashboard: set, list (masked), remove; each write drops the server's decrypted-key cache. */
import type { H3 } from "h3";
import { requireRole } from "../access/permissions.js";
import type { Gateway } from "../gateway.js";
import { byokProviderNames } from "../operations/byok-provider.js";
import { listByok, removeByok, setByok } from "../operations/byok-keys.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { SetByokBody } from "./schemas.js";
import { param, scoper } from "./scope.js";

export function byokRoutes(app: H3, gw: Gateway, base: string): void {
  const scope = scoper(gw);
  const seal = gw.byok.seal.bind(gw.byok);
  app.get(`${base}/byok`, async (event) => {
    const { account, role } = await scope(event);
    requireRole(role, "byok");
    return reply(event, 200, { providers: await byokProviderNames(), keys: await listByok(gw.store, account) });
  });
  app.put(`${base}/byok/:provider`, async (event) => {
    checkOrigin(event, gw.config);
    const body = await readBody(event, SetByokBody);
    const { user, account, role } = await scope(event, body.account ?? event.url.searchParams.get("account"));
    requireRole(role, "byok");
    const stored = await setByok(gw.store, seal, account, param(event, "provider"), body.key, gw.now(), dashboardBy(event, gw, user));
    gw.byok.invalidate();
    return reply(event, 200, stored);
  });
  app.delete(`${base}/byok/:provider`, async (event) => {
    const { user, account, role } = await scope(event);
    requireRole(role, "byok");
    const removed = await removeByok(gw.store, account, param(event, "provider"), gw.now(), dashboardBy(event, gw, user));
    gw.byok.invalidate();
    return reply(event, 200, removed);
  });
}
