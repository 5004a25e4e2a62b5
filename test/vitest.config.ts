import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    benchmark: { include: ['supabase/bench/quick/**/*.bench.ts'] },
    // The stack is shared; files run one after another so database-wide assertions stay predictable.
    fileParallelism: false,
    globalSetup: ['test/request-limits.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
