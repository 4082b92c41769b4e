/**
 * What the browser tests of the dashboard start: Debian's Chromium, an OpenAI-format fake
 * answering `text`, and a real `gateway serve` child process in a temp dir with its config,
 * plus the CLI pointed at the same config, as an operator beside the running server.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { stringify } from "yaml";
import { launchChromium } from "./browser.js";
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
