import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every gateway logs to a file; the teardown scans them all for the suite's secrets (helpers/secrets.ts).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file starts real servers on loopback; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
