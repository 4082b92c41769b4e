/**
 * What the browser tests of the dashboard start: Debian's Chromium, an OpenAI-format fake
 * answering `text`, and a real `gateway serve` child process in a temp dir with its config,
 * plus the CLI pointed at the same config, as an operator beside the running server.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { stringify } from "yaml";
import { launchChromium, setPasswordByLink } from "./browser.js";
import { assertBuilt, freePort, gateway, serve, tempDir, type CliResult } from "./cli.js";
import { startFakeUpstream } from "./fake-upstream.js";
import { openaiConfig } from "./gateway.js";
import { completion } from "./openai-wire.js";

export interface ServedDashboard {
  browser: Browser;
  url: string;
  cli(...args: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

export async function serveWithBrowser(text: string): Promise<ServedDashboard> {
  assertBuilt();
  const browser = await launchChromium();
  const up = await startFakeUpstream(() => completion(text, { prompt_tokens: 1200, completion_tokens: 340 }));
  const dir = tempDir();
  const config = join(dir, "gateway.config.yaml");
  const port = await freePort();
  writeFileSync(config, stringify(openaiConfig(up.url, { server: { port }, database: join(dir, "gateway.db") })));
  const server = await serve(["--config", config, "--port", String(port)], { cwd: dir });
  return {
    browser,
    url: server.url,
    cli: (...args) => gateway(["--config", config, ...args], { cwd: dir }),
    async close() {
      await browser.close();
      server.proc.kill("SIGTERM");
      await up.close();
    },
  };
}

/**
 * A suite's served dashboard: started before its tests with account `acme` holding $5, then
 * `setup` (keys, requests, ...), and closed after them. `served` is set once started.
 */
export function useServedDashboard(setup: (served: ServedDashboard) => Promise<void> = async () => {}) {
  const suite = {} as { served: ServedDashboard };
  beforeAll(async () => {
    suite.served = await serveWithBrowser("Hello");
    expect((await suite.served.cli("credits", "add", "5", "--account", "acme", "--create")).exitCode).toBe(0);
    await setup(suite.served);
  }, 90_000);
  afterAll(() => suite.served?.close());
  return suite;
}

/** A page of a new browser context, in UTC, signed in as a new user of `acme` through the link `users add` prints. */
export async function signedInPage(served: ServedDashboard, email: string, viewport: { width: number; height: number }): Promise<Page> {
  const added = await served.cli("--json", "users", "add", email, "--account", "acme");
  expect(added.exitCode).toBe(0);
  const page = await (await served.browser.newContext({ viewport, timezoneId: "UTC" })).newPage();
  await setPasswordByLink(page, added.json.link, "a long enough password");
  return page;
}
