/**
 * Signing in and out (docs/dashboard.md): email and password (throttled per user and per IP),
 * a one-time link that sets the password and signs in (both refused when `dashboard.passwordSignIn`
 * is false), and sign-out that deletes the session. Single sign-on is api-oidc.ts.
 */
import type { H3, H3Event } from "h3";
import { GatewayError, invalidRequest, passwordSignInDisabled } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { eventClientIp } from "../http/client-ip.js";
import { normalizeEmail, setUserPassword } from "../operations/dashboard-users.js";
import { openMemberships } from "../operations/invitations.js";
import { hashToken } from "../operations/sign-in-link.js";
import type { DashboardUser } from "../store/index.js";
import { dashboardBy } from "./actor.js";
import { checkOrigin, readBody, reply } from "./http.js";
import { homeAccount } from "./scope.js";
import { burnPasswordCheck, hashPassword, verifyPassword } from "./password.js";
import { SignInBody, SetPasswordBody } from "./schemas.js";
import { currentUser, endSession, startSession } from "./session.js";
import { SignInThrottle } from "./throttle.js";

/**
 * Who is signed in: `account` is where the dashboard opens, `role` the role there, `memberships`
 * every account the user belongs to (the account picker; an instance admin's lists all accounts).
 */
async function me(gw: Gateway, u: DashboardUser) {
  const memberships = await openMemberships(gw.store, u);
  const account = homeAccount(u, memberships);
  return {
    email: u.email,
    account,
    admin: u.admin,
    role: u.admin ? "owner" : (memberships.find((m) => m.account === account)?.role ?? null),
    memberships: memberships.map((m) => ({ account: m.account, role: m.role })),
  };
}

const wrongPassword = () => new GatewayError(401, "authentication_error", "invalid_credentials", "Wrong email or password.");

/** Email and password, checked only while neither the user nor the IP is over its failure budget. */
async function signIn(gw: Gateway, throttle: SignInThrottle, event: H3Event): Promise<Response> {
  checkOrigin(event, gw.config);
  if (!gw.config.dashboard.passwordSignIn) throw passwordSignInDisabled();
  const body = await readBody(event, SignInBody);
  const email = body.email.trim().toLowerCase();
  const ip = eventClientIp(event, gw.config.server);
  throttle.check(email, ip);
  const user = await gw.store.findUser(email);
  const ok = user?.passwordHash ? await verifyPassword(body.password, user.passwordHash) : (await burnPasswordCheck(body.password), false);
  if (!ok || !user) {
    throttle.fail(email, ip);
    throw wrongPassword();
  }
  throttle.succeed(email);
  return reply(event, 200, await me(gw, user), { "set-cookie": await startSession(gw, event, user.email) });
}

export function authRoutes(app: H3, gw: Gateway, base: string): void {
  const throttle = new SignInThrottle(gw.now);

  app.post(`${base}/session`, (event) => signIn(gw, throttle, event));

  app.delete(`${base}/session`, async (event: H3Event) => {
    checkOrigin(event, gw.config);
    return reply(event, 204, null, { "set-cookie": await endSession(gw, event) });
  });

  app.get(`${base}/me`, async (event) => reply(event, 200, await me(gw, await currentUser(gw, event))));

  // The page a sign-in link opens posts here: the link is spent whatever happens next.
  app.post(`${base}/password`, async (event) => {
    checkOrigin(event, gw.config);
    if (!gw.config.dashboard.passwordSignIn) throw passwordSignInDisabled();
    const body = await readBody(event, SetPasswordBody);
    const link = await gw.store.takeSignInLink(hashToken(body.token), gw.now());
    const user = link ? await gw.store.findUser(normalizeEmail(link.email)) : undefined;
    if (!link || !user)
      throw invalidRequest("This sign-in link is invalid, expired or already used. Ask for a new one (gateway users reset).", "invalid_link", "token");
    // The password is vouched for by whoever the link was issued for (docs/dashboard.md "Invitations").
    await setUserPassword(gw.store, user, await hashPassword(body.password), link.vouchedBy, gw.now(), dashboardBy(event, gw, user));
    const signedIn = { ...user, vouchedBy: link.vouchedBy };
    return reply(event, 200, await me(gw, signedIn), { "set-cookie": await startSession(gw, event, user.email) });
  });
}
