import { defineConfig } from 'vitest/config';

// Verdicts never depend on the machine's speed: the matrix's waits poll for a
// condition and its deadlines only bound a failure, and the test timeout is a
// hang guard, generous enough for a loaded two-core machine (a failing slice
// waits out its stuck-task bounds before it reports).
export default defineConfig({
  test: {
    testTimeout: 900_000,
    hookTimeout: 120_000,
  },
});
