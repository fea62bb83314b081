import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBES as DEFAULT_PROBES } from '../../../src/audit/probes/index.js';
import { FAPI2_PROBES } from '../../../src/audit/probes/fapi2/index.js';

/** Every probe: what `audit --list` prints, then the FAPI 2.0 ones (`audit --list --only fapi2`, run by --plan fapi2). */
const PROBES = [...DEFAULT_PROBES, ...FAPI2_PROBES];

describe('docs/audit-probes.md', () => {
  // The page's table is generated (npm run docs; test/docs/generated.test.ts checks it is current).
  it('has a row for every probe of `audit --list` and of --plan fapi2, and no other', () => {
    const page = readFileSync('docs/audit-probes.md', 'utf8');
    for (const p of PROBES) expect(page).toContain(`| \`${p.id}\` |`);
    const rows = [...page.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(rows.filter((id) => !PROBES.some((p) => p.id === id))).toEqual([]);
  });
});
