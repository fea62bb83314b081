import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probeReferenceMarkdown } from '../../../src/audit/list.js';
import { PROBES as DEFAULT_PROBES } from '../../../src/audit/probes/index.js';
import { FAPI2_PROBES } from '../../../src/audit/probes/fapi2/index.js';

/** Every probe: what `audit --list` prints, then the FAPI 2.0 ones (`audit --list --only fapi2`, run by --plan fapi2). */
const PROBES = [...DEFAULT_PROBES, ...FAPI2_PROBES];

const PAGE = 'docs/audit-probes.md';
const BEGIN = '<!-- probes:begin -->\n';
const END = '<!-- probes:end -->';

describe('docs/audit-probes.md', () => {
  it('lists every probe of `audit --list`, grouped by category, with its threat and remedy (OAUTHCTL_UPDATE_DOCS=1 rewrites it)', () => {
    const page = readFileSync(PAGE, 'utf8');
    const start = page.indexOf(BEGIN) + BEGIN.length;
    const end = page.indexOf(END);
    const generated = probeReferenceMarkdown(PROBES);
    if (process.env.OAUTHCTL_UPDATE_DOCS === '1') writeFileSync(PAGE, `${page.slice(0, start)}${generated}${page.slice(end)}`);
    else expect(page.slice(start, end)).toBe(generated);
    for (const p of PROBES) expect(page).toContain(`| \`${p.id}\` |`);
  });
});
