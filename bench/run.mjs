#!/usr/bin/env node
// Runs every bench/*.bench.mjs in turn. Each prints its own figures next to a baseline measured in the
// same run, so the numbers compare like with like on whatever machine runs them.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n## ${file}`);
  const result = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`(${file} exited ${result.status ?? result.signal})`);
  }
}
process.exit(failed ? 1 : 0);
