import { describe, expect, it } from 'vitest';
import { escapeTerminal } from '../../src/output/escape.js';

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
