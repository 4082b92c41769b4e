/**
 * Dashboard pages in a real browser against a real `gateway serve` child process (docs/dashboard.md):
 * the key form keeps `total` as the budget period after a key is created (the second key gets no
 * daily budget by surprise); the Members page names the time zone once; the Audit page's Before
 * and After columns are readable at 1280 px, its time-zone line a note rather than an empty state;
 * on a 375 px phone the Usage page shows the first rows of each table with `Show all`, so it stays
 * short. Screenshots go to the run's temp folder.
 */
import { expect, test } from "vitest";
import { ARTIFACTS } from "./helpers/browser.js";
import { signedInPage, useServedDashboard } from "./helpers/dashboard-serve.js";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 740 };
/** The Usage page on a phone with the data below: 6,882 px tall when every row showed, 2,446 px with three per table. */
const USAGE_MAX_HEIGHT = 2_600;

const suite = useServedDashboard(async ({ cli, url }) => {
  // Usage worth a long page: 24 requests over three keys, two of them tagged.
  const keys = [];
  for (const name of ["ci-deploy", "laptop-alice", "batch-nightly"])
    keys.push((await cli("--json", "keys", "create", "--name", name, "--account", "acme")).json.key);
  for (let i = 0; i < 24; i++) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys[i % 3]}`, "content-type": "application/json", ...(i % 2 ? { "x-gateway-tags": `team=t${i % 4}` } : {}) },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `hi ${i}` }] }),
    });
    expect(res.status).toBe(200);
  }
  // An audit record with long before/after values: a key's budget, rpm and expiry changed.
  const update = await cli("keys", "update", "ci-deploy", "--rpm", "600", "--budget", "123.456789", "--budget-period", "month", "--expires", "365d");
  expect(update.exitCode).toBe(0);
});

const cli = (...args: string[]) => suite.served.cli(...args);
const signedIn = (email: string, viewport: { width: number; height: number }) => signedInPage(suite.served, email, viewport);

test("the key form keeps 'total' as the budget period after a key is created: the second key gets a total budget too", async () => {
  const page = await signedIn("keys@example.com", DESKTOP);
  const period = page.getByLabel("Budget period");
  expect(await period.inputValue()).toBe("total");
  for (const [name, budget] of [
    ["first-budgeted", "5"],
    ["second-budgeted", "3"],
  ]) {
    await page.getByLabel("Name", { exact: true }).fill(name!);
    await page.getByLabel("Budget (USD)").fill(budget!);
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.locator("code.full-key").isVisible(), { timeout: 10_000 }).toBe(true);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await period.inputValue(), `the period after creating ${name}`).toBe("total");
  }
  const listed = (await cli("--json", "keys", "list", "--account", "acme")).json as Array<{ name: string; budget_period: string | null }>;
  expect(listed.filter((k) => k.name.endsWith("-budgeted")).map((k) => [k.name, k.budget_period])).toEqual(
    expect.arrayContaining([
      ["first-budgeted", "total"],
      ["second-budgeted", "total"],
    ]),
  );
  await page.context().close();
}, 90_000);

test("the Members page names the time zone once; the Audit page's After column is readable at 1280 px, its zone line a note", async () => {
  const page = await signedIn("owner@example.com", DESKTOP);
  await page.getByRole("link", { name: "Members", exact: true }).click();
  const since = page.locator('td[data-label="Since"]').first();
  await expect.poll(() => since.isVisible(), { timeout: 10_000 }).toBe(true);
  expect(await since.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  expect(await page.locator("main").textContent()).not.toContain("UTC UTC");

  await page.getByRole("link", { name: "Audit", exact: true }).click();
  const update = page.getByRole("row").filter({ hasText: "key.update" }).first();
  await expect.poll(() => update.isVisible(), { timeout: 10_000 }).toBe(true);
  const after = update.locator('td[data-label="After"]');
  expect(await after.textContent()).toContain("123.456789");
  const box = (await after.boundingBox())!;
  expect(box.x + box.width, "the After cell's right edge").toBeLessThanOrEqual(DESKTOP.width);
  const scroll = await page
    .locator("main .scroll")
    .first()
    .evaluate((el) => [el.scrollWidth, el.clientWidth]);
  expect(scroll[0], "the audit table needs no sideways scrolling").toBeLessThanOrEqual(scroll[1]!);

  const note = page.getByRole("note").filter({ hasText: "Times are in UTC." });
  await expect.poll(() => note.isVisible()).toBe(true);
  expect(await note.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).borderStyle), "a note has no empty state's dashed box").toBe("none");
  expect(await page.locator(".empty").filter({ hasText: "Times are in" }).count()).toBe(0);
  await page.screenshot({ path: `${ARTIFACTS}/dashboard-audit-1280.png`, fullPage: true });
  await page.context().close();
}, 90_000);

test("on a 375 px phone the Usage page shows the first rows of each table and stays short; Show all shows the rest", async () => {
  const page = await signedIn("phone@example.com", PHONE);
  await page.getByRole("link", { name: "Usage", exact: true }).click();
  await expect.poll(() => page.getByRole("heading", { name: "Latest requests" }).isVisible(), { timeout: 10_000 }).toBe(true);
  await expect.poll(() => page.locator('section.breakdown td[data-label="Cost"]').first().isVisible()).toBe(true);
  const height = await page.evaluate<number>("document.documentElement.scrollHeight");
  console.log(`Usage page on a 375 px phone: ${height} px tall`);
  await page.screenshot({ path: `${ARTIFACTS}/dashboard-usage-phone.png`, fullPage: true });
  expect(height).toBeLessThanOrEqual(USAGE_MAX_HEIGHT);
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);

  const rows = page.locator('td[data-label="Latency"]');
  expect(await rows.count()).toBe(24);
  const visible = async () => (await Promise.all((await rows.all()).map((r) => r.isVisible()))).filter(Boolean).length;
  expect(await visible()).toBe(3);
  await page.getByRole("button", { name: "Show all 24 rows" }).click();
  expect(await visible()).toBe(24);
  await page.context().close();
}, 90_000);
