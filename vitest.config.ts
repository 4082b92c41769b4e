import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file starts real servers on loopback; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
