// The parts of docs/ made from the code (scripts/docs-sections.ts) are what the code says now.
import { readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generatedSections, replaceSection } from '../../scripts/docs-sections.js';
import { ENVIRONMENT } from '../../src/cli/options/environment.js';

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

describe('docs/ARCHITECTURE.md', () => {
  // The bundle sizes cannot be generated into the page without churning it at every build: they are
  // checked against the built files instead (npm test builds first), within a third either way.
  it('states each bundle size within a third of the built file', () => {
    const page = readFileSync('docs/ARCHITECTURE.md', 'utf8');
    const stated = [...page.matchAll(/`(oauthctl[a-z-]*\.cjs)`[^~\n]*~(\d+(?:\.\d+)?) (MB|KB)/g)].map((m) => ({ file: m[1]!, bytes: Number(m[2]) * (m[3] === 'MB' ? 1e6 : 1e3) }));
    expect(stated.map((s) => s.file).sort()).toEqual(['oauthctl-client.cjs', 'oauthctl-fast.cjs', 'oauthctl-mcp.cjs', 'oauthctl-mock.cjs', 'oauthctl-pages.cjs', 'oauthctl-token.cjs', 'oauthctl.cjs']);
    for (const { file, bytes } of stated) {
      const actual = statSync(`dist/${file}`).size;
      expect(actual / bytes, `${file}: ~${bytes} bytes stated, ${actual} built`).toBeGreaterThan(2 / 3);
      expect(actual / bytes, `${file}: ~${bytes} bytes stated, ${actual} built`).toBeLessThan(4 / 3);
    }
  });
});
