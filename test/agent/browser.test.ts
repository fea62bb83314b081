import { describe, expect, it } from 'vitest';
import { browserArgv, splitCommand } from '../../src/agent/browser.js';

describe('splitCommand', () => {
  it.each([
    ['firefox', ['firefox']],
    ['  firefox   --new-window ', ['firefox', '--new-window']],
    ['"/Applications/Google Chrome.app/x" --incognito', ['/Applications/Google Chrome.app/x', '--incognito']],
    ["node '/tmp/my dir/b.mjs'", ['node', '/tmp/my dir/b.mjs']],
    ['a\\ b c', ['a b', 'c']],
    ['say "he said \\"hi\\""', ['say', 'he said "hi"']],
    ["x ''", ['x', '']],
    ['', []],
  ])('%j -> %j', (command, words) => {
    expect(splitCommand(command)).toEqual(words);
  });
});

describe('browserArgv', () => {
  const url = 'http://127.0.0.1:9/authorize?a=1&b=2';
  it('appends the URL as the last argument', () => {
    expect(browserArgv('open -a Safari', url)).toEqual(['open', '-a', 'Safari', url]);
  });
  it('puts it in place of %s when the command has one', () => {
    expect(browserArgv('chromium --app=%s --new', url)).toEqual(['chromium', `--app=${url}`, '--new']);
  });
});
