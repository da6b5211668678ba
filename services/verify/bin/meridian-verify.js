#!/usr/bin/env node
// `npx meridian-verify statement.json`: runs src/cli.ts through tsx (the repository runs TypeScript with tsx,
// no build step). Exit 0 intact, 1 not intact, 2 unreadable input.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/cli.ts');
process.exitCode = await run(process.argv.slice(2));
