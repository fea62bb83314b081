import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probeReferenceMarkdown } from '../../../src/audit/list.js';
import { PROBES } from '../../../src/audit/probes/index.js';

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
