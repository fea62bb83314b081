// The parts of docs/ made from the code (scripts/docs-sections.ts) are what the code says now.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generatedSections, replaceSection } from '../../scripts/docs-sections.js';
import { ENVIRONMENT } from '../../src/cli/environment.js';

describe('generated docs', () => {
  it.each(['docs/configuration.md', 'docs/audit-probes.md'])('%s is up to date (run npm run docs to write it)', async (page) => {
    const content = readFileSync(page, 'utf8');
    let expected = content;
    for (const section of (await generatedSections()).filter((s) => s.page === page)) expected = replaceSection(expected, section.source, section.text);
    expect(content).toBe(expected);
  });

  it('every OAUTHCTL_ variable the code reads is in the environment table', () => {
    const used = new Set(execFileSync('grep', ['-rhowE', 'OAUTHCTL_[A-Z_]+', 'src'], { encoding: 'utf8' }).split('\n').filter(Boolean));
    const listed = new Set(ENVIRONMENT.flatMap((v) => v.names));
    expect([...used].filter((name) => !listed.has(name))).toEqual([]);
  });
});
