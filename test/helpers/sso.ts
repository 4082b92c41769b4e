/**
 * A gateway with single sign-on against the tests' real issuer (helpers/oidc-issuer.ts), and the
 * browser's whole sign-in through it: Sign in with SSO, the issuer's login and consent pages, back
 * on the dashboard.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startGateway, type TestGateway } from "./gateway.js";
import { startTestIssuer, type TestIssuer } from "./oidc-issuer.js";
import { recordSecret } from "./secrets.js";

/** An issuer, then a gateway whose `dashboard.oidc` names it with `oidc` (allowedDomains, roles), the client secret from the environment. */
export async function gatewayWithIssuer(oidc: Record<string, unknown>): Promise<{ issuer: TestIssuer; gw: TestGateway }> {
  const issuer = await startTestIssuer();
  recordSecret(issuer.clientSecret);
  // The issuer answers nothing useful yet: `serve` must start all the same.
  const config = { issuer: issuer.url, clientId: issuer.clientId, clientSecret: "${SSO_CLIENT_SECRET}", ...oidc };
  const gw = await startGateway({ dashboard: { oidc: config } }, { SSO_CLIENT_SECRET: issuer.clientSecret });
  issuer.attach(`${gw.url}/dashboard/api/oidc/callback`);
  return { issuer, gw };
}

/** Clicks Sign in with SSO, signs in at the issuer as `login`, consents; returns the page wherever it lands on the dashboard. */
export async function ssoSignIn(browser: Browser, gw: TestGateway, issuer: TestIssuer, login: string): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext();
  // Offline: the issuer's dev pages import a web font; only loopback is reachable.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  const page = await context.newPage();
  await page.goto(`${gw.url}/dashboard/`);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.waitForURL(`${issuer.url}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.waitForURL((u) => u.href.startsWith(gw.url) || /interaction/.test(u.pathname));
  if (page.url().startsWith(issuer.url)) await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${gw.url}/dashboard/**`);
  return { page, context };
}
