import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');

/** The ```ts blocks of the README's "Testing with the mock" section. */
function testingBlocks(): string[] {
  const start = readme.indexOf('\n## Testing with the mock\n');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('README: the examples of "Testing with the mock" are the test files that run them', () => {
  it.each(['test/docs/testing-api.test.ts', 'test/docs/testing-client.test.ts'])('%s is in the README as it is', (file) => {
    expect(testingBlocks()).toContain(readFileSync(file, 'utf8'));
  });

  it('has no other example that nothing runs', () => {
    expect(testingBlocks()).toHaveLength(2);
  });
});
