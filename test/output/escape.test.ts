import { describe, expect, it } from 'vitest';
import { escapeLogValue, escapeTerminal } from '../../src/output/escape.js';

describe('escapeTerminal', () => {
  it('shows ESC, BEL, DEL and C1 controls escaped, keeping tab and newline', () => {
    expect(escapeTerminal('a\x1b]52;c;aGk=\x07b')).toBe('a\\x1b]52;c;aGk=\\x07b');
    expect(escapeTerminal('\x1b[2J')).toBe('\\x1b[2J');
    expect(escapeTerminal('x\x9b31my')).toBe('x\\x9b31my');
    expect(escapeTerminal('del\x7f\r')).toBe('del\\x7f\\x0d');
    expect(escapeTerminal('tab\tnew\nline')).toBe('tab\tnew\nline');
    expect(escapeTerminal('plain text, é ✓')).toBe('plain text, é ✓');
  });
});

describe('escapeLogValue', () => {
  it('escapes newlines, tabs and the Unicode line separators too: one value never makes a second log line', () => {
    expect(escapeLogValue('x\n2026-01-01 POST /token 200\r\x1b[2J')).toBe('x\\x0a2026-01-01 POST /token 200\\x0d\\x1b[2J');
    expect(escapeLogValue('a\tb\u2028c\u2029d\x85')).toBe('a\\x09b\\u2028c\\u2029d\\x85');
    expect(escapeLogValue('plain text, é ✓')).toBe('plain text, é ✓');
  });
});
