import { defineConfig } from "vitest/config";

/**
 * Two projects: `main` runs every test (gateways on SQLite), including the Store contract
 * (test/store/*.test.ts: one set of cases run against SQLite and PostgreSQL alike, so every
 * store method's promise is checked on both). `postgres` re-runs over HTTP only what differs
 * per store beyond those methods, each gateway on a PostgreSQL database of its own: holds that
 * are leased rows rather than memory (billing, money-exact, money-hard-cases), a stream's
 * settlement and journal while it runs (stream), a key revoked or limited by another process,
 * seen through LISTEN/NOTIFY (auth, limits), members and roles read per request
 * (dashboard-roles), invitations, members' key limits and key names per account. Both need PostgreSQL and Redis (the fleet tests use them in `main`): the
 * global set-up fails the run with one line when either is missing.
 */
const STORE_TESTS = [
  "test/affinity.test.ts",
  "test/affinity-pins.test.ts",
  "test/alerts.test.ts",
  "test/audit.test.ts",
  "test/auth.test.ts",
  "test/billing.test.ts",
  "test/budget-refusal.test.ts",
  "test/budgets.test.ts",
  "test/cache.test.ts",
  "test/count-tokens-guard.test.ts",
  "test/mcp.test.ts",
  "test/dashboard-sso.test.ts",
  "test/dashboard-roles.test.ts",
  "test/fallbacks.test.ts",
  "test/gateway-cost.test.ts",
  "test/invitations.test.ts",
  "test/key-limits-member.test.ts",
  "test/key-names.test.ts",
  "test/limits.test.ts",
  "test/model-prices.test.ts",
  "test/money-exact.test.ts",
  "test/money-hard-cases.test.ts",
  "test/provider-preferences.test.ts",
  "test/reported-usage.test.ts",
  "test/stream.test.ts",
  "test/tool-fees.test.ts",
  "test/usage-tags.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file starts real servers on loopback; two workers match the 2-core machines.
    maxWorkers: 2,
    // Services (a run id, PostgreSQL and Redis answer) and the log scan: every gateway logs to a
    // file; the teardown scans them all for the suite's secrets (helpers/secrets.ts). Each
    // project runs them; the scan of the shared log folder happens once.
    globalSetup: ["test/setup/services.ts", "test/global-setup.ts"],
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"] } },
      { extends: true, test: { name: "postgres", include: STORE_TESTS, env: { GATEWAY_TEST_STORE: "postgres" } } },
    ],
  },
});
