/**
 * The dashboard on a phone (375×740, docs/dashboard.md "Narrow screens"): no page is wider than
 * the viewport (every page the navigation links to, whatever it holds, Members included, plus sign-in and the
 * set-password page), for an account holder and for an admin; the Usage page's Cost column and
 * its breakdown by tag are on screen; the Revoke dialog's confirming button is inside the viewport and revokes the key when
 * tapped. Runs against a real `gateway serve` child process in Debian's Chromium.
 */
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";

const PHONE = { width: 375, height: 740 };
/** Pages whose content is known here; any other page the navigation links to is checked for width too. */
const PAGES = ["Keys", "Usage", "Credits", "BYOK", "Members", "Models", "Health"];

let browser: Browser;
let url: string;
let served: ServedDashboard | undefined;
const cli = (...args: string[]) => served!.cli(...args);

beforeAll(async () => {
  served = await serveWithBrowser("Hello");
  ({ browser, url } = served);
  // Something on every page: credits history, a key with a request, a BYOK key.
  expect((await cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
  const key = await cli("--json", "keys", "create", "--name", "phone-key-with-a-long-name", "--account", "acme");
  expect(key.exitCode).toBe(0);
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key.json.key}`, "content-type": "application/json", "x-gateway-tags": "team=a-rather-long-team-name-for-a-phone" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status).toBe(200);
  expect((await cli("byok", "set", "anthropic", "--key", "sk-ant-phone-secret-9876", "--account", "acme")).exitCode).toBe(0);
}, 60_000);

afterAll(() => served?.close());

/** A phone-sized page signed in through a fresh `users add` link. */
async function signedIn(email: string, ...flags: string[]): Promise<Page> {
  const added = await cli("--json", "users", "add", email, "--account", "acme", ...flags);
  expect(added.exitCode).toBe(0);
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await page.goto(added.json.link);
  await expect.poll(() => page.getByLabel("New password").isVisible()).toBe(true);
  expect(await pageWidth(page), "set-password page width").toBeLessThanOrEqual(PHONE.width);
  await setPasswordByLink(page, added.json.link, "a long enough password");
  return page;
}

const pageWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");

/** Its box lies inside the phone's viewport once the page is scrolled down to it (never sideways). */
async function onScreen(el: Locator): Promise<boolean> {
  // A string is evaluated as a script in the page: the box's top is relative to the viewport.
  const top = (await el.boundingBox())?.y ?? 0;
  await el.page().evaluate(`window.scrollTo(0, window.scrollY + ${top} - 80)`);
  const box = await el.boundingBox();
  return !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height;
}

async function everyPageFits(page: Page, expectText: Record<string, string>): Promise<void> {
  const linked = await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").allTextContents();
  expect(linked).toEqual(expect.arrayContaining(PAGES));
  for (const name of linked) {
    await page.getByRole("link", { name, exact: true }).click();
    if (expectText[name]) await expect.poll(() => page.locator("main").textContent(), { message: name }).toContain(expectText[name]);
    else await expect.poll(() => page.getByRole("heading", { name, exact: true }).isVisible(), { message: name }).toBe(true);
    expect(await pageWidth(page), `${name} page width`).toBeLessThanOrEqual(PHONE.width);
  }
}

const TEXT = {
  Keys: "phone-key-with-a-long-name",
  Usage: "$0.000384",
  Credits: "$4.999616",
  BYOK: "…9876",
  Members: "phone@example.com",
  Models: "openai/gpt-4o-mini",
  Health: "openai",
};

test("an account holder's pages fit a 375 px phone, Cost shows, and Revoke can be tapped", async () => {
  const page = await signedIn("phone@example.com");
  await everyPageFits(page, TEXT);

  await page.getByRole("link", { name: "Usage" }).click();
  const cost = page.locator('td[data-label="Cost"]').filter({ hasText: "$0.000384" }).first();
  await expect.poll(() => cost.isVisible()).toBe(true);
  expect(await onScreen(cost)).toBe(true);
  // The breakdown by a tag: its table stacks like the others, every column on screen.
  await page.getByLabel("Group by").selectOption("tag");
  const group = page.locator('section.breakdown td[data-label="Tag team"]').filter({ hasText: "a-rather-long-team-name-for-a-phone" });
  await expect.poll(() => group.isVisible()).toBe(true);
  const costCell = page.locator('section.breakdown td[data-label="Cost"]').first();
  expect(await onScreen(costCell)).toBe(true);
  expect(await onScreen(page.getByRole("button", { name: "Export CSV" }))).toBe(true);
  expect(await pageWidth(page), "usage breakdown width").toBeLessThanOrEqual(PHONE.width);

  await page.getByRole("link", { name: "Keys" }).click();
  const row = page.getByRole("row").filter({ hasText: "phone-key-with-a-long-name" });
  await row.getByRole("button", { name: "Revoke" }).click();
  const confirm = page.getByRole("dialog").getByRole("button", { name: "Revoke" });
  await expect.poll(() => confirm.isVisible()).toBe(true);
  expect(await onScreen(confirm)).toBe(true);
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
  await confirm.click(); // Playwright clicks only an element that receives the pointer there
  await expect.poll(() => row.textContent()).toContain("revoked");
  const listed = await cli("--json", "keys", "list", "--account", "acme");
  expect(listed.json.find((k: { name: string }) => k.name === "phone-key-with-a-long-name").state).toBe("revoked");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect.poll(() => page.getByRole("button", { name: "Sign in" }).isVisible()).toBe(true);
  expect(await pageWidth(page), "sign-in page width").toBeLessThanOrEqual(PHONE.width);
  await page.context().close();
}, 90_000);

test("an admin's pages (account picker, every balance, add credits) fit a 375 px phone", async () => {
  const page = await signedIn("phone-admin@example.com", "--admin");
  await page.getByLabel("Viewing account").selectOption("acme");
  await everyPageFits(page, { ...TEXT, Keys: "phone-key" });
  await page.getByRole("link", { name: "Credits" }).click();
  await expect.poll(() => page.getByRole("button", { name: "Add credits" }).isVisible()).toBe(true);
  expect(await onScreen(page.getByRole("button", { name: "Add credits" }))).toBe(true);
  await expect.poll(() => page.locator('td[data-label="Balance"]').first().isVisible()).toBe(true);
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
  await page.context().close();
}, 90_000);
