/**
 * Starts a real gateway on 127.0.0.1:0 (node:http, as `gateway serve` does) with a fresh
 * SQLite file in a temp dir, and gives tests a key and credits the way the CLI would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { parseConfig } from "../../src/config.js";
import { generateKey, hashKey, newKeyId } from "../../src/keys.js";
import { usdToNano } from "../../src/money.js";
import { startServer, type RunningServer } from "../../src/serve.js";
import type { Store } from "../../src/store/index.js";

export interface TestGateway {
  url: string;
  dir: string;
  db: string;
  server: RunningServer;
  store: Store;
  createKey(opts?: { account?: string; rpm?: number; expiresAt?: number; name?: string }): string;
  addCredits(usd: string, account?: string): void;
  client(key: string, opts?: { maxRetries?: number }): OpenAI;
  close(): Promise<void>;
}

let counter = 0;

export async function startGateway(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "gw-test-"));
  const db = join(dir, "gateway.db");
  const config = parseConfig({ ...raw, database: db }, env);
  const server = await startServer({ config }, { port: 0, env: { GATEWAY_SECRET: "test-secret", ...env } });
  const store = server.gateway.store;
  return {
    url: server.url, dir, db, server, store,
    createKey({ account = "default", rpm, expiresAt, name } = {}) {
      const key = generateKey();
      store.ensureAccount(account, Date.now());
      store.createKey({
        id: newKeyId(), name: name ?? `test-${++counter}-${Math.random().toString(36).slice(2, 8)}`, account, hash: hashKey(key),
        last4: key.slice(-4), createdAt: Date.now(), expiresAt: expiresAt ?? null, revokedAt: null, lastUsedAt: null, rpm: rpm ?? null,
      });
      return key;
    },
    addCredits(usd, account = "default") {
      store.addCredits(account, usdToNano(usd), Date.now());
    },
    client: (key, opts = {}) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: opts.maxRetries ?? 0 }),
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A config with one OpenAI instance at `baseUrl` serving `openai/gpt-4o-mini` at $0.15 / $0.60 per 1M. */
export function openaiConfig(baseUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    providers: { openai: { baseUrl: `${baseUrl}/v1`, apiKey: "sk-upstream-secret-0000" } },
    models: [{ id: "openai/gpt-4o-mini", pricing: { prompt: "0.15", completion: "0.6" }, context_length: 128000, max_output: 16384, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 500 },
    ...extra,
  };
}
