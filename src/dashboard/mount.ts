/**
 * The dashboard on the gateway's h3 app (docs/dashboard.md): its JSON API under /dashboard/api/
 * and its built pages under /dashboard/. app/server.ts calls this once, before its catch-all
 * 404, when `dashboard.enabled` is on.
 */
import type { H3, H3Event } from "h3";
import { routeNotFound } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { eventClientIp } from "../http/client-ip.js";
import { limitByIp } from "../http/rate-limit.js";
import type { RequestState } from "../http/request-state.js";
import { alertRoutes } from "./api-alerts.js";
import { auditRoutes } from "./api-audit.js";
import { authRoutes } from "./api-auth.js";
import { budgetRoutes } from "./api-budgets.js";
import { byokRoutes } from "./api-byok.js";
import { mcpRoutes } from "./api-mcp.js";
import { creditRoutes } from "./api-credits.js";
import { infoRoutes } from "./api-info.js";
import { keyRoutes } from "./api-keys.js";
import { oidcRoutes } from "./api-oidc.js";
import { usageRoutes } from "./api-usage.js";
import { memberRoutes } from "./api-members.js";
import { reply } from "./http.js";
import { dashboardOpenApi } from "./openapi.js";
import { loadStatic, SECURITY_HEADERS, type StaticFile } from "./static.js";

const API = "/dashboard/api";

export function mountDashboard(app: H3, gw: Gateway, files: Map<string, StaticFile> = loadStatic()): void {
  const openapi = JSON.stringify(dashboardOpenApi());
  // Every API request counts against the client IP's window, like requests without a key on /v1.
  app.use(`${API}/**`, async (event, next) => {
    await limitByIp(gw, event.context.gateway as RequestState, eventClientIp(event, gw.config.server));
    return next();
  });
  app.get(`${API}/openapi.json`, (event) => reply(event, 200, JSON.parse(openapi) as unknown, { "cache-control": "no-cache" }));
  authRoutes(app, gw, API);
  oidcRoutes(app, gw, API);
  for (const routes of [keyRoutes, creditRoutes, budgetRoutes, byokRoutes, infoRoutes, usageRoutes, memberRoutes, alertRoutes, auditRoutes, mcpRoutes])
    routes(app, gw, API);
  app.all(`${API}/**`, (event) => {
    throw routeNotFound(event.url.pathname);
  });

  const page = (event: H3Event) => {
    // h3 matches /dashboard and /dashboard/ alike: relative asset paths need the slash.
    if (event.url.pathname === "/dashboard") return redirect(event);
    const rel = event.url.pathname.slice("/dashboard/".length);
    const file = files.get(rel === "" ? "index.html" : rel);
    if (!file) {
      if (files.size === 0) throw routeNotFound(`${event.url.pathname} (the dashboard was not built: run npm run build)`);
      throw routeNotFound(event.url.pathname);
    }
    return new Response(new Uint8Array(file.body), {
      headers: {
        ...SECURITY_HEADERS,
        ...(event.context.gateway as RequestState).headers,
        "content-type": file.type,
        "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
      },
    });
  };
  app.get("/dashboard", page);
  app.get("/dashboard/**", page);
}

function redirect(event: H3Event): Response {
  return new Response(null, { status: 308, headers: { location: "/dashboard/", ...SECURITY_HEADERS, ...(event.context.gateway as RequestState).headers } });
}
