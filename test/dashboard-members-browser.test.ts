/**
 * The Members page in a real browser (docs/dashboard.md, "Members and roles"): an owner signs
 * in, adds a member by email (their one-time link is shown once), changes a role with the
 * `Role` select and removes a member with `Remove`, which asks for confirmation in a dialog whose
 * confirming button says `Remove` (as Revoke does); the CLI beside the server sees each change.
 * A screenshot goes to the run's temp folder, and to docs/ with GATEWAY_UPDATE_SCREENSHOTS=1.
 */
import { copyFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ARTIFACTS, setPasswordByLink } from "./helpers/browser.js";
import { serveWithBrowser, type ServedDashboard } from "./helpers/dashboard-serve.js";
import { recordSecret } from "./helpers/secrets.js";

let browser: Browser;
let served: ServedDashboard | undefined;
const cli = (...args: string[]) => served!.cli(...args);

beforeAll(async () => {
  served = await serveWithBrowser("Hello");
  ({ browser } = served);
}, 60_000);

afterAll(() => served?.close());

const roles = async () => (await cli("--json", "members", "list", "--account", "acme")).json.map((m: { email: string; role: string }) => [m.email, m.role]);

const row = (page: Page, email: string) => page.getByRole("row").filter({ hasText: email });

async function addMember(page: Page, email: string, role: string): Promise<void> {
  await page.locator("form").getByLabel("Email").fill(email);
  await page.getByLabel("New member's role").selectOption(role);
  await page.getByRole("button", { name: "Add member" }).click();
  const link = page.locator("code.full-key");
  await expect.poll(() => link.isVisible(), { timeout: 10_000 }).toBe(true);
  recordSecret(new URL((await link.textContent())!.replace("#/", "")).searchParams.get("token"));
  await page.getByRole("button", { name: "Done" }).click();
  await expect.poll(() => row(page, email).isVisible()).toBe(true);
}

test("an owner adds members, changes a role with the Role select and removes a member with Remove", async () => {
  const added = await cli("--json", "users", "add", "owner@example.com", "--account", "acme", "--create");
  expect(added.exitCode).toBe(0);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await setPasswordByLink(page, added.json.link, "the owner's long password");

  await page.getByRole("link", { name: "Members", exact: true }).click();
  await expect.poll(() => row(page, "owner@example.com").isVisible(), { timeout: 10_000 }).toBe(true);
  await addMember(page, "dev@example.com", "member");
  await addMember(page, "ops@example.com", "viewer");
  expect(await roles()).toEqual([
    ["dev@example.com", "member"],
    ["ops@example.com", "viewer"],
    ["owner@example.com", "owner"],
  ]);

  await row(page, "dev@example.com").getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
  await expect.poll(roles).toContainEqual(["dev@example.com", "admin"]);
  // Remove asks first, as Revoke does: nothing happens until the dialog's own Remove; Cancel keeps the member.
  const dialog = page.getByRole("dialog", { name: "Remove ops@example.com from acme?" });
  await row(page, "ops@example.com").getByRole("button", { name: "Remove", exact: true }).click();
  await expect.poll(() => dialog.isVisible()).toBe(true);
  expect(await roles()).toContainEqual(["ops@example.com", "viewer"]);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect.poll(() => dialog.isVisible()).toBe(false);
  expect(await roles()).toContainEqual(["ops@example.com", "viewer"]);
  await row(page, "ops@example.com").getByRole("button", { name: "Remove", exact: true }).click();
  await dialog.getByRole("button", { name: "Remove", exact: true }).click();
  await expect.poll(() => row(page, "ops@example.com").count()).toBe(0);
  await expect.poll(() => dialog.count()).toBe(0);
  expect(await roles()).toEqual([
    ["dev@example.com", "admin"],
    ["owner@example.com", "owner"],
  ]);

  // The last owner stays: the dialog says why and stays open.
  await row(page, "owner@example.com").getByRole("button", { name: "Remove", exact: true }).click();
  const last = page.getByRole("dialog", { name: "Remove owner@example.com from acme?" });
  await last.getByRole("button", { name: "Remove", exact: true }).click();
  await expect.poll(() => last.getByRole("alert").textContent()).toContain("must keep at least one owner");
  await last.getByRole("button", { name: "Cancel" }).click();
  expect(await roles()).toContainEqual(["owner@example.com", "owner"]);

  await page.screenshot({ path: `${ARTIFACTS}/members.png`, fullPage: true });
  await page.context().close();
  if (process.env.GATEWAY_UPDATE_SCREENSHOTS === "1") copyFileSync(`${ARTIFACTS}/members.png`, "docs/dashboard-members.png");
}, 120_000);

test("a viewer sees only the pages their role may use", async () => {
  const added = await cli("--json", "users", "add", "reader@example.com", "--account", "acme", "--role", "viewer");
  expect(added.exitCode).toBe(0);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  // Not setPasswordByLink: a viewer has no Keys page, the dashboard opens on Usage.
  await page.goto(added.json.link);
  await page.getByLabel("New password").fill("the viewer's long password");
  await page.getByRole("button", { name: "Set password" }).click();
  await expect.poll(() => page.getByRole("heading", { name: "Usage" }).isVisible(), { timeout: 15_000 }).toBe(true);
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await expect.poll(() => nav.getByRole("link").allTextContents()).toEqual(["Usage", "Credits", "Models", "Health"]);
  await page.context().close();
}, 60_000);
