import { describe, expect, it } from 'vitest';
import { bearerError, parseWwwAuthenticate, quotedString } from '../../src/oauth/www-authenticate.js';

describe('parseWwwAuthenticate', () => {
  it('reads an RFC 6750 Bearer challenge with quoted values', () => {
    const header = 'Bearer realm="example", error="invalid_token", error_description="The access token expired"';
    expect(parseWwwAuthenticate(header)).toEqual([{ scheme: 'Bearer', params: { realm: 'example', error: 'invalid_token', error_description: 'The access token expired' } }]);
  });

  it('separates several challenges and keeps escaped quotes', () => {
    const header = 'Basic realm="a, b", Bearer error=insufficient_scope, scope="photo openid", error_description="say \\"hi\\""';
    const challenges = parseWwwAuthenticate(header);
    expect(challenges.map((c) => c.scheme)).toEqual(['Basic', 'Bearer']);
    expect(challenges[0]?.params).toEqual({ realm: 'a, b' });
    expect(challenges[1]?.params).toEqual({ error: 'insufficient_scope', scope: 'photo openid', error_description: 'say "hi"' });
  });

  it('keeps a token68 credential and a bare scheme', () => {
    expect(parseWwwAuthenticate('Negotiate abc123==, Bearer')).toEqual([
      { scheme: 'Negotiate', params: { token68: 'abc123==' } },
      { scheme: 'Bearer', params: {} },
    ]);
  });
});

describe('bearerError', () => {
  it('returns the Bearer error fields, case-insensitively by scheme', () => {
    expect(bearerError('bearer error="invalid_token"')).toEqual({ error: 'invalid_token' });
  });

  it('is undefined without a header or without a Bearer challenge', () => {
    expect(bearerError(undefined)).toBeUndefined();
    expect(bearerError('Basic realm="x"')).toBeUndefined();
  });
});

describe('quotedString: what the mock writes, the parser reads back', () => {
  it.each(['plain', 'say "hi"', 'back\\slash', 'a, b="c", d', 'tab\tand\nnewline', 'caf\u00e9 \u001b[31mred'])('%j', (value) => {
    const header = `Bearer realm="r", error_description=${quotedString(value)}, scope="s"`;
    const [challenge] = parseWwwAuthenticate(header);
    expect(challenge?.params).toEqual({ realm: 'r', error_description: value.replace(/[^\x20-\x7e]/g, '?'), scope: 's' });
    expect(header).not.toMatch(/[^\x20-\x7e]/);
  });
});
