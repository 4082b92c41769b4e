/**
 * The dashboard end to end in a real browser (docs/dashboard.md, issue 13): a user made with
 * `gateway users add` opens the sign-in link, sets a password, creates a key, uses it with the
 * official openai client, sees the request on the usage page, revokes the key and sees it
 * refused, signs out. Another account's key never appears. Runs against a real
 * `gateway serve` child process; screenshots of every page go to the run's temp folder,
 * and, with GATEWAY_UPDATE_SCREENSHOTS=1, the keys and usage pages and the usage breakdown to
 * docs/ for the README (a plain run leaves the working tree clean). The browser runs in
 * Europe/Paris: every time shown is in that zone and names it.
 */
import { copyFileSync, readFileSync } from "node:fs";
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ARTIFACTS, setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";

let browser: Browser;
let url: string;
let served: ServedDashboard | undefined;
const cli = (...args: string[]) => served!.cli(...args);

beforeAll(async () => {
  served = await serveWithBrowser("Hello from the fake upstream");
  ({ browser, url } = served);
}, 60_000);

afterAll(() => served?.close());

const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });

test("a new user signs in with the link, creates, uses and revokes a key, and signs out", async () => {
  // Set up as an operator would, with the CLI beside the running server.
  expect((await cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
  const other = await cli("--json", "keys", "create", "--name", "globex-private-key", "--account", "globex", "--create");
  expect(other.exitCode).toBe(0);
  const added = await cli("--json", "users", "add", "alice@example.com", "--account", "acme");
  expect(added.exitCode).toBe(0);
  expect(added.json).toMatchObject({ email: "alice@example.com", account: "acme", admin: false });
  expect(added.json.link).toMatch(new RegExp(`^${url}/dashboard/#/set-password\\?token=[A-Za-z0-9_-]{43}$`));

  // A zone that is not the server's: every time shown is in it, and says so (docs/dashboard.md, "Times").
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: "Europe/Paris" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => void (m.type() === "error" && violations.push(m.text())));
  page.on("pageerror", (e) => violations.push(e.message));

  // The link: choose a password, then signed in on Keys.
  await page.goto(added.json.link);
  await page.getByLabel("New password").fill("a long enough password");
  await shot(page, "set-password");
  await page.getByRole("button", { name: "Set password" }).click();
  await expect.poll(() => page.getByRole("heading", { name: "Keys" }).isVisible(), { timeout: 15_000 }).toBe(true);
  await expect.poll(() => page.getByText("No keys yet").isVisible()).toBe(true);
  expect(page.url()).not.toContain("token=");

  // Create a key: shown once, with Copy.
  await page.getByLabel("Name").fill("journey-key");
  await page.getByRole("button", { name: "Create key" }).click();
  const fullKey = (await page.locator("code.full-key").textContent({ timeout: 10_000 }))!;
  expect(fullKey).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  await page.getByRole("button", { name: "Copy" }).click();
  await expect.poll(() => page.getByText("Copied").isVisible()).toBe(true);
  expect(await page.evaluate("navigator.clipboard.readText()")).toBe(fullKey);
  await shot(page, "keys-new-key");
  await page.getByRole("button", { name: "Done" }).click();
  expect(await page.content()).not.toContain("globex-private-key");

  // Use it with the official client.
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: fullKey, maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
  expect(answer.choices[0]!.message.content).toBe("Hello from the fake upstream");
  const tagged = await client.chat.completions.create(
    { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    { headers: { "X-Gateway-Tags": "team=search,env=prod" } },
  );
  expect(tagged.choices[0]!.message.content).toBe("Hello from the fake upstream");

  // The usage page shows it: chart, by model, by key, latest requests.
  await page.getByRole("link", { name: "Usage" }).click();
  const latest = page.locator("table").filter({ hasText: "Latest" }).or(page.locator("table").last());
  await expect.poll(() => latest.textContent()).toContain("openai/gpt-4o-mini");
  const usageText = (await page.locator("main").textContent())!;
  expect(usageText).toContain("journey-key");
  expect(usageText).toContain("1200 + 340");
  expect(usageText).toContain("$0.000384"); // 1200 × 0.15 + 340 × 0.6 per 1M
  expect(await page.locator(".chart canvas").count()).toBeGreaterThan(0);
  expect(usageText).toContain("Europe/Paris");
  expect(usageText).not.toMatch(/\d{2}:\d{2}(?! Europe\/Paris)/); // no time without its zone
  await shot(page, "usage");

  // The breakdown: by the tag `team` over today (UTC), then Export CSV = the CLI's CSV.
  await page.getByLabel("Group by").selectOption("tag");
  await page.getByLabel("Tag name").fill("team");
  await page.getByLabel("Tag name").press("Enter");
  const breakdown = page.locator("section.breakdown table");
  await expect.poll(() => breakdown.textContent()).toContain("search");
  expect(await breakdown.getByRole("row", { name: /^search 1 1200 340 \$0\.000384$/ }).count()).toBe(1);
  expect(await breakdown.getByRole("row", { name: /^\(no tag\) 1 1200 340 \$0\.000384$/ }).count()).toBe(1);
  await shot(page, "usage-breakdown");
  const today = new Date().toISOString().slice(0, 10);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  const csv = readFileSync((await download.path())!, "utf8");
  const fromCli = await cli("usage", "--account", "acme", "--by", "tag:team", "--since", today, "--until", today, "--csv");
  expect(fromCli.exitCode, fromCli.stderr).toBe(0);
  expect(csv).toBe(`${fromCli.stdout}\n`);
  expect(csv).toBe("group,requests,prompt_tokens,completion_tokens,cost\nsearch,1,1200,340,0.000384\n,1,1200,340,0.000384\n");
  await page.setViewportSize({ width: 375, height: 800 });
  await expect.poll(() => page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
  await shot(page, "usage-375");
  await page.setViewportSize({ width: 1280, height: 800 });

  // The other pages, each with its content.
  await page.getByRole("link", { name: "Credits" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("$4.999232");
  expect(await page.locator('td[data-label="Time"]').first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} Europe\/Paris$/);
  await shot(page, "credits");
  await page.getByRole("link", { name: "BYOK" }).click();
  await page.getByLabel("Provider").selectOption("anthropic");
  await page.getByLabel("Key", { exact: true }).fill("sk-ant-journey-secret-4321");
  await page.getByRole("button", { name: "Save" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("…4321");
  await shot(page, "byok");
  await page.getByRole("button", { name: "Remove" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("No BYOK keys");
  await page.getByRole("link", { name: "Models" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("openai/gpt-4o-mini");
  await shot(page, "models");
  await page.getByRole("link", { name: "Health" }).click();
  await expect.poll(() => page.locator("main").textContent()).toContain("openai");
  await shot(page, "health");

  // After creation the full key is on no page again.
  await page.getByRole("link", { name: "Keys" }).click();
  await page.reload();
  await expect.poll(() => page.getByRole("cell", { name: "journey-key" }).isVisible()).toBe(true);
  expect(await page.content()).not.toContain(fullKey);
  // Created, in Paris time and saying so: the CLI's UTC instant, formatted for that zone.
  const listed = await cli("--json", "keys", "list", "--account", "acme");
  const createdAt = new Date(listed.json.find((k: { name: string }) => k.name === "journey-key").created_at);
  const paris = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: "Europe/Paris",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(createdAt)
      .map((p) => [p.type, p.value]),
  );
  const created = page.getByRole("row").filter({ hasText: "journey-key" }).locator('td[data-label="Created"]');
  expect(await created.textContent()).toBe(`${paris.year}-${paris.month}-${paris.day} ${paris.hour}:${paris.minute} Europe/Paris`);
  await shot(page, "keys");

  // Revoke, confirmed in a dialog; the key is refused from then on.
  const row = page.getByRole("row").filter({ hasText: "journey-key" });
  await row.getByRole("button", { name: "Revoke" }).click();
  const dialog = page.getByRole("dialog");
  await shot(page, "keys-revoke-dialog");
  await dialog.getByRole("button", { name: "Revoke" }).click();
  await expect.poll(() => row.textContent()).toContain("revoked");
  await expect(client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({
    status: 401,
  });

  // Sign out ends the session on the server: the old cookie is dead.
  const [cookie] = await context.cookies(`${url}/dashboard/api/me`);
  expect(cookie).toMatchObject({ name: "gateway_session", httpOnly: true, sameSite: "Strict", path: "/dashboard" });
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect.poll(() => page.getByRole("button", { name: "Sign in" }).isVisible()).toBe(true);
  await shot(page, "sign-in");
  const replay = await fetch(`${url}/dashboard/api/me`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
  expect(replay.status).toBe(401);

  // And signs in again with email and password.
  await page.getByLabel("Email").fill("alice@example.com");
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Sign in" }).click();
  // Sign-in hashes the password (scrypt): on a loaded machine it takes more than poll's default second.
  await expect.poll(() => page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 15_000 }).toBe(true);
  expect(await page.content()).not.toContain("globex-private-key");
  expect(violations.filter((v) => !v.includes("401"))).toEqual([]); // no CSP violation, no script error
  await context.close();

  if (process.env.GATEWAY_UPDATE_SCREENSHOTS === "1")
    for (const name of ["keys", "usage", "usage-breakdown"]) copyFileSync(`${ARTIFACTS}/${name}.png`, `docs/dashboard-${name}.png`);
}, 120_000);

test("an admin looks at any account and adds credits", async () => {
  const added = await cli("--json", "users", "add", "root@example.com", "--account", "ops", "--create", "--admin");
  expect(added.exitCode).toBe(0);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await setPasswordByLink(page, added.json.link, "the admin's long password");

  // Every account's keys, one account at a time.
  await page.getByLabel("Viewing account").selectOption("globex");
  await expect.poll(() => page.getByRole("cell", { name: "globex-private-key" }).isVisible()).toBe(true);

  await page.getByRole("link", { name: "Credits" }).click();
  await page.getByLabel("Account", { exact: true }).selectOption("acme");
  await page.getByLabel("Amount").fill("2.5");
  await page.getByRole("button", { name: "Add credits" }).click();
  await expect.poll(() => page.getByRole("status").textContent()).toBe("Added $2.5 to acme. Balance: $7.499232");
  // The page now shows the account it credited (it was viewing globex), and every balance.
  await expect.poll(() => page.locator(".balance").textContent()).toBe("Balance of acme: $7.499232");
  expect(await page.getByLabel("Viewing account").inputValue()).toBe("acme");
  await expect.poll(() => page.getByRole("row", { name: /^acme \$7\.499232/ }).isVisible()).toBe(true);
  expect(await page.getByRole("cell", { name: "By" }).count()).toBe(0); // a header, not a cell
  await expect.poll(() => page.getByRole("cell", { name: "root@example.com" }).first().isVisible()).toBe(true);
  const inline = page.getByLabel("Amount");
  await inline.fill("0");
  await page.getByRole("button", { name: "Add credits" }).click();
  await expect.poll(() => page.getByRole("alert").textContent()).toBe("amount: must be greater than zero");
  expect(await page.getByRole("status").count()).toBe(0);
  expect(await page.getByLabel("Account", { exact: true }).inputValue()).toBe("acme");
  await shot(page, "credits-admin");
  const shown = await cli("--json", "credits", "show", "--account", "acme");
  expect(shown.json.balance).toBe("7.499232");
  await context.close();
}, 60_000);
