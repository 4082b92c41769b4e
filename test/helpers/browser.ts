/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). A missing
 * Chromium fails the suite with one line saying how to install it: the journey is never skipped.
 */
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";

export const CHROMIUM = "/usr/bin/chromium";
/** Screenshots live in the run's temp folder (removed at teardown), never in the work tree. */
export const ARTIFACTS = join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), "dashboard-shots");

/** Opens a sign-in link from `users add`, chooses the password, and waits for the Keys page. */
export async function setPasswordByLink(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel("New password").fill(password);
  await page.getByRole("button", { name: "Set password" }).click();
  await expect.poll(() => page.getByRole("heading", { name: "Keys" }).isVisible(), { timeout: 15_000 }).toBe(true);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does this)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
