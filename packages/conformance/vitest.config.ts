import { defineConfig } from 'vitest/config';

// Every case starts real servers (express + grpc-js on port 0) and waits on
// observed events with bounded timeouts, so cases get more room than the
// default; files run one at a time to keep loopback port churn low.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    fileParallelism: false,
  },
});
