/**
 * The dashboard's Audit page in a real browser (docs/audit.md): an account holder sees the
 * changes made to their account, with the time zone of the times, and the page fits a 375 px
 * phone. A screenshot goes to the run's temp folder, and to docs/ with GATEWAY_UPDATE_SCREENSHOTS=1.
 */
import { copyFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ARTIFACTS, setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";

let browser: Browser;
let served: ServedDashboard | undefined;
const cli = (...args: string[]) => served!.cli(...args);

beforeAll(async () => {
  served = await serveWithBrowser("Hello");
  ({ browser } = served);
}, 60_000);

afterAll(() => served?.close());

test("the Audit page lists the account's changes with who, when (UTC), what, before and after, at 375 px", async () => {
  expect((await cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
  expect((await cli("keys", "create", "--name", "ci-deploy", "--account", "acme")).exitCode).toBe(0);
  expect((await cli("keys", "update", "ci-deploy", "--rpm", "60", "--budget", "20", "--budget-period", "month")).exitCode).toBe(0);
  expect((await cli("keys", "create", "--name", "globex-secret-project", "--account", "globex", "--create")).exitCode).toBe(0);
  const added = await cli("--json", "users", "add", "alice@example.com", "--account", "acme");
  expect(added.exitCode).toBe(0);

  const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const page = await context.newPage();
  await setPasswordByLink(page, added.json.link, "a long enough password");
  await page.getByLabel("Name").fill("laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect.poll(() => page.locator("code.full-key").isVisible(), { timeout: 10_000 }).toBe(true);

  await page.getByRole("link", { name: "Audit" }).click();
  await expect.poll(() => page.getByRole("heading", { name: "Audit" }).isVisible(), { timeout: 10_000 }).toBe(true);
  await expect.poll(() => page.getByText("Times are in UTC.").isVisible()).toBe(true);
  for (const action of ["key.create", "key.update", "credits.add", "user.add", "user.password"])
    await expect.poll(() => page.locator('td[data-label="Action"]', { hasText: action }).first().isVisible()).toBe(true);
  expect(await page.locator('td[data-label="Who"]', { hasText: "alice@example.com" }).count()).toBeGreaterThan(0);
  expect(await page.getByText("globex-secret-project").count()).toBe(0); // another account's change
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);

  await page.screenshot({ path: `${ARTIFACTS}/dashboard-audit.png`, fullPage: true });
  await context.close();
  if (process.env.GATEWAY_UPDATE_SCREENSHOTS === "1") copyFileSync(`${ARTIFACTS}/dashboard-audit.png`, "docs/dashboard-audit.png");
}, 120_000);
