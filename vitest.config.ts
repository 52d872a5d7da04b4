import { defineConfig } from 'vitest/config';

// Tests are split by intent: unit (pure), contract (ports x adapters), api (black-box over HTTP).
// Heavy model suites run in forked processes so a wasm crash cannot take the runner down.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'domain/**/*.test.ts', 'infra/**/*.test.ts', 'projections/**/*.test.ts', 'workflows/**/*.test.ts', 'models/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // The event store refuses event types and fields missing from the personal-data classification
    // (domain/privacy/classification.ts): every test that appends an event checks the inventory.
    env: { SELLO_PRIVACY_STRICT: '1' },
  },
});
