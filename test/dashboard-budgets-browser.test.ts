/**
 * Budgets and key edits in the browser on a phone (375×740, docs/dashboard.md "Budgets and key
 * limits"): a key created with a budget, edited with Edit → Save, the account's and a member's
 * budget set and removed on the Credits page, every step no wider than the viewport. Debian's
 * Chromium against a real `gateway serve` child process.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";

const PHONE = { width: 375, height: 740 };

let browser: Browser;
let served: ServedDashboard | undefined;
let page: Page;
let link: string;
const cli = (...args: string[]) => served!.cli(...args);
const width = () => page.evaluate<number>("document.documentElement.scrollWidth");

beforeAll(async () => {
  served = await serveWithBrowser("Hello");
  ({ browser } = served);
  expect((await cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
  const added = await cli("--json", "users", "add", "owner@example.com", "--account", "acme");
  expect(added.exitCode).toBe(0);
  expect((await cli("users", "add", "member@example.com", "--account", "acme")).exitCode).toBe(0);
  link = added.json.link as string;
}, 60_000);

afterAll(() => served?.close());

test("a key created with a budget, then edited: budget, period and rpm saved through PATCH", async () => {
  page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await setPasswordByLink(page, link, "a long enough password");
  await page.getByRole("link", { name: "Keys", exact: true }).click();
  await page.getByLabel("Name").fill("phone-budget-key");
  await page.getByLabel("Budget (USD)").fill("12.5");
  await page.getByLabel("Budget period").selectOption("week");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("$0 of $12.5 (week)");
  await page.getByRole("button", { name: "Done" }).click();
  expect(await width()).toBeLessThanOrEqual(PHONE.width);
  await page.getByRole("button", { name: "Edit" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Budget (USD)").fill("3");
  await dialog.getByLabel("Budget period").selectOption("day");
  await dialog.getByLabel("Requests per minute").fill("20");
  expect(await width()).toBeLessThanOrEqual(PHONE.width);
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("$0 of $3 (day)");
  const listed = (await cli("--json", "keys", "list", "--account", "acme")).json as Array<Record<string, unknown>>;
  expect(listed.find((k) => k.name === "phone-budget-key")).toMatchObject({ budget: "3", budget_period: "day", rpm: 20 });
}, 60_000);

test("the Credits page's Budgets section sets and removes the account's and a member's budget", async () => {
  await page.getByRole("link", { name: "Credits", exact: true }).click();
  await page.getByLabel("Budget (USD)").fill("100");
  await page.getByRole("button", { name: "Set budget" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("$100 per month (UTC)");
  await page.getByLabel("Applies to").selectOption("member@example.com");
  await page.getByLabel("Budget (USD)").fill("5");
  await page.getByLabel(/^Period/).selectOption("day");
  await page.getByRole("button", { name: "Set budget" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("$5 per day (UTC)");
  expect(await width()).toBeLessThanOrEqual(PHONE.width);
  expect((await cli("--json", "budgets", "list", "--account", "acme")).json).toEqual([
    expect.objectContaining({ member: null, limit: "100", period: "month" }),
    expect.objectContaining({ member: "member@example.com", limit: "5", period: "day" }),
  ]);
  await page.getByRole("button", { name: "Remove budget of member@example.com" }).click();
  await expect.poll(() => page.locator("main").textContent()).not.toContain("$5 per day");
  expect((await cli("--json", "budgets", "list", "--account", "acme")).json).toHaveLength(1);
}, 60_000);
