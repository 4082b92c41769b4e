/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). A missing
 * Chromium fails the suite with one line saying how to install it: the journey is never skipped.
 */
import { existsSync, mkdirSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = "test-artifacts/dashboard";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: install it with 'apt-get install -y chromium' (.ci/run does this)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
