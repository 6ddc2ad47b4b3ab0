import { defineConfig } from 'vitest/config';

/**
 * The conformance kit's run (src/kit/run-kit.ts): the scenario files only,
 * against the agent whose card A2A_REMINDERS_KIT_CARD_URL names, so no store
 * projects (the reminder store is the agent's own) and none of the suite's
 * self-checks (coverage, error table, the kit's own tests). The A2A_REMINDERS_KIT_*
 * variables reach the workers from the runner's environment and its `env`
 * option; this file sets none. Reporters are the runner's: it prints its own
 * report.
 */
export default defineConfig({
  test: {
    include: ['src/scenarios/**/*.test.ts'],
    // Hang guards only, as in vitest.config.ts: no verdict depends on the
    // machine's or the network's speed, and a remote agent may be slower than
    // an in-process stack.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One file at a time, as in the suite: the agent under test sees one
    // scenario's tasks at a time.
    fileParallelism: false,
  },
});
