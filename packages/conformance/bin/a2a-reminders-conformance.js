#!/usr/bin/env node
// The bin of @a2a-reminders/conformance (`npx a2a-reminders-conformance …`).
// A checked-in file, not the compiled CLI itself: npm links a bin into
// node_modules/.bin only if its file exists at install time, and in a fresh
// clone dist/ exists only after `npm run build`, which comes after `npm ci`.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/kit/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error(
    'a2a-reminders-conformance: the kit is not built yet; run `npm run build` at the repository root first',
  );
  process.exit(2);
}
await import(cli.href);
