import { describe, expect, it } from 'vitest';
import { formatScope, isValidScopeToken, parseScope } from '../../src/oauth/scope.js';

describe('parseScope', () => {
  it('splits on spaces and plus signs, dropping empties', () => {
    expect(parseScope('photo offline_access')).toEqual(['photo', 'offline_access']);
    expect(parseScope('photo+offline_access')).toEqual(['photo', 'offline_access']);
    expect(parseScope('  photo ++ openid ')).toEqual(['photo', 'openid']);
  });
  it('merges repeated options and drops duplicates, keeping order', () => {
    expect(parseScope(['openid profile', 'photo', 'openid'])).toEqual(['openid', 'profile', 'photo']);
  });
  it('is empty for nothing', () => {
    expect(parseScope(undefined)).toEqual([]);
    expect(parseScope(null)).toEqual([]);
    expect(parseScope('')).toEqual([]);
  });
  it('keeps case (scope tokens are case-sensitive)', () => {
    expect(parseScope('Photo photo')).toEqual(['Photo', 'photo']);
  });
});

describe('formatScope', () => {
  it('joins with single spaces (RFC 6749 section 3.3)', () => {
    expect(formatScope(['a', 'b'])).toBe('a b');
    expect(formatScope([])).toBe('');
  });
});

describe('isValidScopeToken', () => {
  it('allows %x21 / %x23-5B / %x5D-7E only', () => {
    expect(isValidScopeToken('https://api.example.com/read:all')).toBe(true);
    expect(isValidScopeToken('a"b')).toBe(false);
    expect(isValidScopeToken('a\\b')).toBe(false);
    expect(isValidScopeToken('a b')).toBe(false);
    expect(isValidScopeToken('é')).toBe(false);
    expect(isValidScopeToken('')).toBe(false);
  });
});
