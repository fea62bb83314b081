import { describe, expect, it } from 'vitest';
import { singleParams } from '../../src/mock/core/http/http.js';

/** The rule as URLSearchParams gives it: the reference the fast parser must agree with. */
function reference(text: string): { values: Map<string, string>; duplicate?: string } {
  const values = new Map<string, string>();
  const seen = new Set<string>();
  let duplicate: string | undefined;
  for (const [key, value] of new URLSearchParams(text)) {
    if (seen.has(key)) duplicate ??= key;
    seen.add(key);
    if (value !== '') values.set(key, value);
  }
  return duplicate === undefined ? { values } : { values, duplicate };
}

describe('singleParams (query strings and form bodies)', () => {
  it('decodes + and percent-encoding, drops empty values, names the first repeated parameter', () => {
    expect(singleParams('a=1&b=x+y%2Bz&c=&d&e=%C3%A9=')).toEqual({
      values: new Map([
        ['a', '1'],
        ['b', 'x y+z'],
        ['e', 'é='],
      ]),
    });
    expect(singleParams('state=&state=s&scope=a&scope=b')).toEqual({
      values: new Map([
        ['state', 's'],
        ['scope', 'b'],
      ]),
      duplicate: 'state',
    });
    expect(singleParams('')).toEqual({ values: new Map() });
  });

  it('keeps malformed percent-encoding as URLSearchParams does', () => {
    for (const text of ['a=%', 'a=%zz&b=1', 'a=%ff%fe', 'a=%E0%A4%A', '%=1', 'a=%C3%28', 'a=%ED%A0%80']) {
      expect(singleParams(text), text).toEqual(reference(text));
    }
  });

  it('agrees with URLSearchParams on 20,000 random inputs', () => {
    // A seeded generator, so that a failure can be reproduced.
    let seed = 0x9e3779b9;
    const next = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed;
    };
    const pieces = ['a', 'b', 'state', '=', '&', '+', '%', '%2', '%20', '%41', '%C3%A9', '%E2%82%AC', '%F0%9F%98%80', '%ff', '%C3', 'é', '€', ' ', '~', '%25', '%26', '%3D'];
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      const length = next() % 12;
      for (let j = 0; j < length; j++) text += pieces[next() % pieces.length];
      expect(singleParams(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});
