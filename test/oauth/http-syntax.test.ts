import { describe, expect, it } from 'vitest';
import { hasBadFieldChar, isToken, parseDigits, trimOws } from '../../src/oauth/http-syntax.js';

// The grammar of RFC 9110 written as regular expressions, to hold the character-at-a-time checks to.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD = /[\x00-\x08\x0a-\x1f\x7f]/;

describe('HTTP syntax (RFC 9110 section 5.6)', () => {
  it('isToken and hasBadFieldChar agree with the grammar for every character up to U+0200', () => {
    for (let c = 0; c < 0x200; c++) {
      const ch = String.fromCharCode(c);
      expect(isToken(`a${ch}b`), `U+${c.toString(16)}`).toBe(TOKEN.test(`a${ch}b`));
      expect(hasBadFieldChar(`a${ch}b`), `U+${c.toString(16)}`).toBe(BAD.test(ch));
      expect(hasBadFieldChar(`a${ch}b`, true), `U+${c.toString(16)}`).toBe(BAD.test(ch) || c > 0xff);
    }
    expect(isToken('')).toBe(false);
  });

  it('trimOws trims SP and HTAB only; parseDigits takes digits and nothing else', () => {
    expect(trimOws(' \t a b \t ')).toBe('a b');
    expect(trimOws('\u00a0x\n')).toBe('\u00a0x\n');
    expect([parseDigits('0', 10, 15), parseDigits('123456789012345', 10, 15), parseDigits('ffFF', 16, 8), parseDigits('ffffffff', 16, 8)]).toEqual([0, 123456789012345, 65535, 0xffffffff]);
    for (const bad of ['', '-1', '+1', '1e3', ' 1', '1 ', '0x1', '1234567890123456', '\u0661']) expect(parseDigits(bad, 10, 15), bad).toBeUndefined();
    for (const bad of ['g', 'fffffffff', '']) expect(parseDigits(bad, 16, 8), bad).toBeUndefined();
  });
});
