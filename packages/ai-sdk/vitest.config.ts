import { defineConfig } from 'vitest/config';

// Verdicts never depend on the machine's speed: the test timeout is only a
// hang guard, generous enough for a loaded two-core machine.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
