/**
 * Starts a real gateway on 127.0.0.1:0 (node:http, as `gateway serve` does) with a fresh
 * SQLite file in a temp dir, and gives tests a key and credits the way the CLI would.
 * `useGateway` wires the usual one-fake, one-gateway setup into a suite's hooks.
 */
import type { GuardMode } from "../../src/guardrails/policy.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { generateKey, hashKey, newKeyId } from "../../src/access/keys.js";
import { usdToNano } from "../../src/core/money.js";
import type { BudgetPeriod } from "../../src/core/budget-periods.js";
import { startServer, type RunningServer } from "../../src/app/serve.js";
import type { KeyCacheMode, Store } from "../../src/store/index.js";
import { createTestDatabase, onPostgres } from "./services.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "./fake-upstream.js";
import { logFile, recordConfigSecrets, recordSecret } from "./secrets.js";

export interface TestGateway {
  url: string;
  /** This gateway's log file (JSON lines, complete after `close`), when the suite runs with one. */
  logFile?: string;
  dir: string;
  db: string;
  server: RunningServer;
  store: Store;
  /** `createdBy`: the dashboard user recorded as its creator (whose member budget covers it); `budget`: the key's own. */
  createKey(opts?: {
    account?: string;
    rpm?: number;
    expiresAt?: number;
    name?: string;
    cache?: KeyCacheMode;
    createdBy?: string;
    budget?: { amount: bigint; period: BudgetPeriod };
    /** The key's MCP grant (`keys create --mcp`): `<server>:<tool glob>` entries. */
    mcp?: string[];
    /** The key's own secret guardrail mode (docs/guardrails.md). */
    guardrails?: GuardMode;
  }): Promise<string>;
  addCredits(usd: string, account?: string): Promise<void>;
  client(key: string, opts?: { maxRetries?: number }): OpenAI;
  /**
   * `fetch` for talking to this gateway. Under `server.compat: openai` it checks every
   * /v1/chat/completions answer against OpenAI's published schema (helpers/openai-schema.ts);
   * otherwise it is the global fetch.
   */
  fetch: typeof globalThis.fetch;
  /** The schema violations seen by `fetch` and `client` since the last call (always empty outside compat openai). */
  schemaErrors(): Promise<string[]>;
  close(): Promise<void>;
}

let counter = 0;

export async function startGateway(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(process.env.GATEWAY_TEST_TMP ?? tmpdir(), "gw-test-")); // the run's folder: removed at teardown even if a suite never closes its gateway
  // Under the `postgres` project every gateway gets a database of its own (helpers/services.ts).
  const given = typeof raw.database === "string" ? raw.database : undefined;
  const pgDb = !given && onPostgres() ? await createTestDatabase() : undefined;
  const db = given ?? pgDb?.url ?? join(dir, "gateway.db");
  const config = parseConfig({ ...raw, database: db }, env);
  recordConfigSecrets(raw);
  for (const [name, value] of Object.entries(env)) if (/KEY|SECRET|TOKEN|PASSWORD/.test(name)) recordSecret(value);
  // In a suite run every gateway logs to a file the final redaction scan reads (helpers/secrets.ts).
  const file = logFile("gateway");
  const log = file ? { dest: file, format: "json" as const, level: "info" } : undefined;
  const server = await startServer({ config }, { port: 0, env: { GATEWAY_SECRET: "test-secret", ...env }, log }).catch(async (err) => {
    await pgDb?.drop();
    throw err;
  });
  const store = server.gateway.store;
  // Loaded only under compat openai, so strict-mode suites pay nothing for ajv.
  const watch = config.server.compat === "openai" ? new (await import("./openai-schema.js")).SchemaWatch() : undefined;
  const gwFetch = watch?.fetch ?? globalThis.fetch;
  return {
    url: server.url,
    dir,
    db,
    server,
    store,
    logFile: file,
    async createKey({ account = "default", rpm, expiresAt, name, cache, createdBy, budget, mcp, guardrails } = {}) {
      const key = generateKey();
      recordSecret(key);
      await store.ensureAccount(account, Date.now());
      await store.createKey({
        id: newKeyId(),
        name: name ?? `test-${++counter}-${Math.random().toString(36).slice(2, 8)}`,
        account,
        hash: hashKey(key),
        last4: key.slice(-4),
        createdAt: Date.now(),
        expiresAt: expiresAt ?? null,
        revokedAt: null,
        lastUsedAt: null,
        rpm: rpm ?? null,
        ...(cache && { cache }),
        ...(createdBy && { createdBy }),
        ...(guardrails && { guardrails }),
        ...(budget && { budget: budget.amount, budgetPeriod: budget.period }),
        ...(mcp && { mcp }),
      });
      return key;
    },
    async addCredits(usd, account = "default") {
      await store.addCredits(account, usdToNano(usd), Date.now());
    },
    client: (key, opts = {}) =>
      new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: opts.maxRetries ?? 0, ...(watch && { fetch: watch.fetch }) }),
    fetch: gwFetch,
    schemaErrors: async () => (watch ? watch.take() : []),
    async close() {
      await server.close();
      await pgDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A config with one OpenAI instance at `baseUrl` serving `openai/gpt-4o-mini` at $0.15 / $0.60 per 1M. */
export function openaiConfig(baseUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    providers: { openai: { baseUrl: `${baseUrl}/v1`, apiKey: "sk-upstream-secret-0000" } },
    models: [
      {
        id: "openai/gpt-4o-mini",
        pricing: { prompt: "0.15", completion: "0.6" },
        context_length: 128000,
        max_output: 16384,
        endpoints: [{ provider: "openai", model: "gpt-4o-mini" }],
      },
    ],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 500 },
    ...extra,
  };
}

/**
 * Two OpenAI-format fakes, `primary` then `secondary` in fixed order, serving `model` at $1 / $2
 * per 1M: the failover, limits, health and circuit suites' shared shape. `keys` overrides the
 * upstream keys (tests that plant them to prove they never leak).
 */
export function twoProviderConfig(
  model: string,
  primaryUrl: string,
  secondaryUrl: string,
  keys = { primary: "sk-primary-upstream-secret-1111", secondary: "sk-secondary-upstream-secret-2222" },
): Record<string, unknown> {
  return {
    providers: {
      primary: { plugin: "openai", baseUrl: `${primaryUrl}/v1`, apiKey: keys.primary },
      secondary: { plugin: "openai", baseUrl: `${secondaryUrl}/v1`, apiKey: keys.secondary },
    },
    models: [
      {
        id: model,
        pricing: { prompt: "1", completion: "2" },
        max_output: 1000,
        order: "fixed",
        endpoints: [
          { provider: "primary", model: "p-model" },
          { provider: "secondary", model: "s-model" },
        ],
      },
    ],
    retry: { initialInterval: 10, maxInterval: 50, exponent: 1.5, maxElapsedTime: 2000 },
  };
}

/** Backoff for tests: quick rounds, and a deadline long enough that a loaded machine does not turn a retry into a give-up. */
export const FAST_RETRY = { initialInterval: 5, maxInterval: 10, exponent: 1.5, maxElapsedTime: 2000 };

/** One fake upstream and one gateway shared by a file's (or a describe's) tests. */
export interface Harness {
  /** Filled in by beforeAll: read them inside tests, not at collection time. */
  readonly fake: FakeUpstream;
  readonly gw: TestGateway;
  readonly key: string;
  /** POST /v1/chat/completions with the harness key; an object body is laid over the `body` defaults. */
  post(body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The JSON body the fake received last. */
  sent(): Record<string, any>;
}

export interface HarnessOptions {
  /** Credits for `account` (default "100"). */
  credits?: string;
  account?: string;
  /** Defaults for every `post` body (model, messages). */
  body?: Record<string, unknown>;
  /** The fake's answer when nothing is queued. */
  fallback?: (req: Recorded) => Reply;
}

/**
 * Registers the hooks: start the fake, a gateway from `config(fake.url)`, a key with credits;
 * forget the fake's requests before each test; close both after.
 */
export function useGateway(config: (fakeUrl: string) => Record<string, unknown>, opts: HarnessOptions = {}): Harness {
  const { credits = "100", account = "default", body: defaults = {} } = opts;
  const h = {
    post: (body: unknown = {}, headers: Record<string, string> = {}) =>
      h.gw.fetch(`${h.gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(isObject(body) ? { ...defaults, ...body } : body),
      }),
    sent: () => h.fake.requests.at(-1)!.body as Record<string, any>,
  } as { -readonly [K in keyof Harness]: Harness[K] };
  beforeAll(async () => {
    h.fake = await startFakeUpstream(opts.fallback);
    h.gw = await startGateway(config(h.fake.url));
    h.key = await h.gw.createKey({ account });
    await h.gw.addCredits(credits, account);
  });
  afterAll(async () => {
    await h.gw?.close();
    await h.fake?.close();
  });
  beforeEach(() => {
    h.fake.requests.length = 0;
  });
  // Under compat openai, a test whose answers break OpenAI's schema fails here.
  afterEach(async () => {
    if (h.gw) expect(await h.gw.schemaErrors(), "answers that break OpenAI's published schema").toEqual([]);
  });
  return h;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
