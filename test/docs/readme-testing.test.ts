import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const page = readFileSync('docs/admin-api.md', 'utf8');

/** The ```ts and ```js blocks of the admin API page (docs/admin-api.md), which the README links for testing with the mock. */
function testingBlocks(): string[] {
  return [...page.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('docs/admin-api.md: its test examples are the test files that run them', () => {
  it.each(['test/docs/testing-api.test.ts', 'test/docs/testing-client.test.ts', 'test/docs/testing-node-test.mjs'])('%s is in the README as it is', (file) => {
    expect(testingBlocks()).toContain(readFileSync(file, 'utf8'));
  });

  it('has no other example that nothing runs', () => {
    expect(testingBlocks()).toHaveLength(3);
  });
});
