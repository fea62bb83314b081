import { describe, expect, it } from 'vitest';
import { escapeLogValue, escapeTerminal } from '../../src/output/escape.js';
import { jsonText } from '../../src/output/render.js';

/** Every bidirectional formatting character (UAX #9): embeddings, overrides, isolates, marks. */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];

describe('escapeTerminal', () => {
  it('shows ESC, BEL, DEL and C1 controls escaped, keeping tab and newline', () => {
    expect(escapeTerminal('a\x1b]52;c;aGk=\x07b')).toBe('a\\x1b]52;c;aGk=\\x07b');
    expect(escapeTerminal('\x1b[2J')).toBe('\\x1b[2J');
    expect(escapeTerminal('x\x9b31my')).toBe('x\\x9b31my');
    expect(escapeTerminal('del\x7f\r')).toBe('del\\x7f\\x0d');
    expect(escapeTerminal('tab\tnew\nline')).toBe('tab\tnew\nline');
    expect(escapeTerminal('plain text, é ✓')).toBe('plain text, é ✓');
  });

  it('shows every bidirectional control escaped, so server text cannot reorder what is read', () => {
    for (const c of BIDI) expect(escapeTerminal(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`);
    expect(escapeTerminal('https://good.example/\u202egpj.exe')).toBe('https://good.example/\\u202egpj.exe');
    expect(escapeTerminal('ok: \u05e9\u05dc\u05d5\u05dd, مرحبا')).toBe('ok: \u05e9\u05dc\u05d5\u05dd, مرحبا');
  });
});

describe('escapeLogValue', () => {
  it('escapes newlines, tabs and the Unicode line separators too: one value never makes a second log line', () => {
    expect(escapeLogValue('x\n2026-01-01 POST /token 200\r\x1b[2J')).toBe('x\\x0a2026-01-01 POST /token 200\\x0d\\x1b[2J');
    expect(escapeLogValue('a\tb\u2028c\u2029d\x85')).toBe('a\\x09b\\u2028c\\u2029d\\x85');
    expect(escapeLogValue('plain text, é ✓')).toBe('plain text, é ✓');
  });

  it('escapes the bidirectional controls too', () => {
    expect(escapeLogValue(BIDI.join(''))).toBe('\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c');
  });
});

describe('jsonText', () => {
  it('writes the bidirectional controls as \\u escapes that parse back to the same value', () => {
    const value = { error_description: `x${BIDI.join('')}y` };
    const text = jsonText(value, 0);
    for (const c of BIDI) expect(text).not.toContain(c);
    expect(JSON.parse(text)).toEqual(value);
  });
});
