/**
 * Single sign-on routes (docs/dashboard.md, "Single sign-on"): which sign-in methods the page
 * offers, the start of a sign-in (a redirect to the issuer) and its callback, which provisions
 * the user and starts a normal dashboard session. Both are browser navigations, so a refusal is
 * a redirect to the sign-in page with `sso_error=<code>` (a fixed code, never free text), and
 * the operator's log says why.
 */
import type { H3, H3Event } from "h3";
import { GatewayError, ssoNotConfigured } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { RequestState } from "../http/request-state.js";
import { eventClientIp } from "../http/client-ip.js";
import { identify, provision, ssoBy } from "../operations/sso-provision.js";
import { dashboardBase, isSecure, reply } from "./http.js";
import { OidcIssuer } from "./oidc-issuer.js";
import { beginSignIn, callbackUrl, finishSignIn, flowCookie, FLOW_TTL_MS } from "./oidc-flow.js";
import { SECURITY_HEADERS } from "./static.js";
import { startSession } from "./session.js";

function redirect(event: H3Event, location: string, cookies: string[]): Response {
  const headers = new Headers({ ...SECURITY_HEADERS, ...(event.context.gateway as RequestState).headers, location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 302, headers });
}

export function oidcRoutes(app: H3, gw: Gateway, base: string): void {
  const oidc = gw.config.dashboard.oidc;
  const issuer = oidc && new OidcIssuer(oidc);
  // Warm the discovery so the first sign-in is quick; a failure here only logs and is retried.
  void issuer
    ?.configuration()
    .catch(() => gw.obs.log.notice("warn", `dashboard: the SSO issuer ${oidc!.issuer} could not be reached yet`, { event: "sso_unavailable" }));

  app.get(`${base}/sign-in-methods`, (event) => reply(event, 200, { password: gw.config.dashboard.passwordSignIn, sso: issuer !== undefined }));

  const refused = (event: H3Event, err: unknown): Response => {
    if (!(err instanceof GatewayError)) throw err;
    gw.obs.log.notice("warn", `dashboard: single sign-on refused (${err.code}): ${err.message}`, { event: "sso_refused", code: err.code });
    const secure = isSecure(event, gw.config.server);
    return redirect(event, `${dashboardBase(event, gw.config)}/dashboard/#/?sso_error=${err.code}`, [flowCookie("", 0, secure)]);
  };

  app.get(`${base}/oidc/start`, async (event) => {
    if (!issuer) throw ssoNotConfigured();
    try {
      const begun = await beginSignIn(issuer, callbackUrl(dashboardBase(event, gw.config)), gw.now());
      return redirect(event, begun.location, [flowCookie(begun.cookie, FLOW_TTL_MS / 1000, isSecure(event, gw.config.server))]);
    } catch (err) {
      return refused(event, err);
    }
  });

  app.get(`${base}/oidc/callback`, async (event) => {
    if (!issuer) throw ssoNotConfigured();
    const secure = isSecure(event, gw.config.server);
    try {
      const claims = await finishSignIn(issuer, event, callbackUrl(dashboardBase(event, gw.config)), gw.now());
      const by = ssoBy(issuer.settings.issuer, eventClientIp(event, gw.config.server));
      const { user, passwordRemoved } = await provision(gw.store, identify(claims, issuer.settings), issuer.settings.defaultRole, gw.now(), by);
      const session = await startSession(gw, event, user.email);
      // The person is told when a password someone's invitation had set for them was removed (docs/dashboard.md "Invitations").
      const notice = passwordRemoved ? "#/?sso_notice=password_removed" : "";
      return redirect(event, `${dashboardBase(event, gw.config)}/dashboard/${notice}`, [flowCookie("", 0, secure), session]);
    } catch (err) {
      return refused(event, err);
    }
  });
}
