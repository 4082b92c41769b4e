import { defineConfig } from "vitest/config";

/**
 * Two projects: `main` runs every test (gateways on SQLite); `postgres` runs the tests whose
 * gateways touch money, keys and limits again with each gateway on a PostgreSQL database of its
 * own (contract.md §7). Both need PostgreSQL and Redis (the fleet tests use them in `main`):
 * the global set-up fails the run with one line when either is missing.
 */
const STORE_TESTS = [
  "test/auth.test.ts",
  "test/billing.test.ts",
  "test/compat.test.ts",
  "test/embeddings.test.ts",
  "test/errors.test.ts",
  "test/failover.test.ts",
  "test/health.test.ts",
  "test/hostile-upstreams.test.ts",
  "test/limits.test.ts",
  "test/money-cache.test.ts",
  "test/money-exact.test.ts",
  "test/money-hard-cases.test.ts",
  "test/responses.test.ts",
  "test/stream.test.ts",
  "test/validation.test.ts",
  "test/clients/openai-node.test.ts",
  "test/dashboard-api.test.ts",
  "test/dashboard-auth.test.ts",
  "test/clients/responses.test.ts",
  "test/providers/anthropic.test.ts",
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
