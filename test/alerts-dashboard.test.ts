/**
 * Alerts in the dashboard (docs/alerts.md "The dashboard") on a 375 px phone, against a real
 * `gateway serve` child process in Debian's Chromium: the banner shows on every page once a key's
 * budget reached a threshold (three alerts, the banner still at most ~15 % of the screen), and the
 * owner's Alerts page lists the webhook and its deliveries, each with the level and threshold that fired.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";
import { recordSecret } from "./helpers/secrets.js";

const PHONE = { width: 375, height: 740 };
let browser: Browser;
let url: string;
let served: ServedDashboard | undefined;
const received: string[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200).end();
  });
});
const cli = (...args: string[]) => served!.cli(...args);
const ask = (key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 5 }),
  });

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  served = await serveWithBrowser("Hello");
  ({ browser, url } = served);
  expect((await cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
  const key = await cli("--json", "keys", "create", "--name", "budgeted-key", "--account", "acme");
  expect(key.exitCode).toBe(0);
  const hook = await cli("--json", "alerts", "add", "--url", `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, "--account", "acme");
  expect(hook.exitCode).toBe(0);
  recordSecret(hook.json.secret);
  expect((await ask(key.json.key)).status).toBe(200);
  // A budget its first request already used more than half of: the banner's 50 %, and the next request's alert.
  const spent = Number((await cli("--json", "usage", "--account", "acme")).json.cost);
  expect(spent).toBeGreaterThan(0);
  expect((await cli("keys", "update", "budgeted-key", "--budget", String(spent * 1.5))).exitCode).toBe(0);
  // Two more alerts for the banner: the account's budget (the same amount) and a low balance.
  expect((await cli("budgets", "set", String(spent * 1.5), "--account", "acme", "--period", "total")).exitCode).toBe(0);
  expect((await cli("alerts", "thresholds", "--account", "acme", "--low-balance", "10")).exitCode).toBe(0);
  await new Promise((r) => setTimeout(r, 1_200)); // the server re-reads webhooks after the CLI's writes
  expect((await ask(key.json.key)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await new Promise<void>((r) => (receiver.closeAllConnections(), receiver.close(() => r())));
});

test("the banner on every page, and the owner's Alerts page with its delivery log, fit a 375 px phone", async () => {
  await expect.poll(() => received.length, { timeout: 5_000 }).toBeGreaterThan(0);
  const added = await cli("--json", "users", "add", "owner@example.com", "--account", "acme");
  expect(added.exitCode).toBe(0);
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await setPasswordByLink(page, added.json.link, "a long enough password");
  const banner = page.getByRole("status", { name: "Alerts" });
  for (const name of ["Keys", "Usage", "Credits", "Alerts"]) {
    await page.getByRole("link", { name, exact: true }).click();
    await expect.poll(() => banner.textContent(), { message: name }).toMatch(/A key's budget reached (50|80|100)% this budget/);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth"), `${name} page width`).toBeLessThanOrEqual(PHONE.width);
    // Three alerts, and still at most ~15 % of the first screen: the most pressing, the others behind a toggle.
    const height = (await banner.boundingBox())!.height;
    console.log(`alert banner on a 375 px phone (${name}): ${height} px of ${PHONE.height}`);
    expect(height, `${name}: the banner's height`).toBeLessThanOrEqual(PHONE.height * 0.15);
  }
  expect(await banner.locator("p").first().textContent()).toMatch(/^The balance is \$[\d.]+, below the alert amount of \$10\./);
  await banner.getByText("2 more alerts").click();
  await expect.poll(() => banner.getByText(/The account's budget reached 100%/).isVisible()).toBe(true);
  const main = page.locator("main");
  await expect.poll(() => main.textContent()).toContain("Deliveries");
  const text = (await main.textContent()) ?? "";
  expect(text).toContain("delivered");
  expect(text).toContain("/hook");
  // Each delivery says what fired it: the budget's level and threshold, or the low balance.
  expect(text).toMatch(/key budget at (50|80|100)%/);
  expect(text).toContain("account budget at 100%");
  expect(text).toContain("balance below $10");
  expect(text).toContain("Created");
  await page.context().close();
}, 90_000);
