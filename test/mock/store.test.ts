import { describe, expect, it } from 'vitest';
import { ExpiringMap, StoreFullError } from '../../src/mock/core/store/expiring-map.js';

describe('ExpiringMap: the bounded store behind codes, tokens and sessions', () => {
  it('drops expired entries on read and on sweep', () => {
    let now = 1000;
    const map = new ExpiringMap<{ expiresAt: number }>(100, () => now);
    for (let i = 0; i < 50; i++) map.set(`k${i}`, { expiresAt: now + (i < 40 ? 10 : 1000) });
    now += 20;
    expect(map.get('k0')).toBeUndefined();
    expect(map.get('k45')).toBeDefined();
    map.sweep();
    expect(map.size).toBe(10);
  });

  it('at its limit refuses the new entry (503, Retry-After) and keeps every old one', () => {
    const map = new ExpiringMap<{ expiresAt: number }>(3, () => 0, 'codes');
    for (const k of ['a', 'b', 'c']) map.set(k, { expiresAt: 10_000 + (k === 'b' ? 5000 : 0) });
    let refused: unknown;
    try {
      map.set('d', { expiresAt: 20_000 });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(StoreFullError);
    expect(refused).toMatchObject({ status: 503, error: 'temporarily_unavailable', headers: { 'Retry-After': '10' } });
    expect(map.size).toBe(3);
    for (const k of ['a', 'b', 'c']) expect(map.get(k)).toBeDefined();
    expect(map.get('d')).toBeUndefined();
  });

  it('at its limit sweeps what has expired (by its clock) before it refuses', () => {
    let now = 0;
    const map = new ExpiringMap<{ expiresAt: number }>(2, () => now);
    map.set('a', { expiresAt: 100 });
    map.set('b', { expiresAt: 5000 });
    now = 200;
    map.set('c', { expiresAt: 5000 });
    expect([map.get('a'), map.get('b'), map.get('c')].map(Boolean)).toEqual([false, true, true]);
  });

  it('keeps a reserve: a set that asks for one is refused while the reserve is all that is left', () => {
    const map = new ExpiringMap<{ expiresAt: number }>(4, () => 0);
    for (const k of ['a', 'b']) map.set(k, { expiresAt: 10 });
    expect(() => map.set('c', { expiresAt: 10 }, 2)).toThrow(StoreFullError);
    map.set('c', { expiresAt: 10 });
    expect(map.size).toBe(3);
  });

  it('tells onExpire of each entry it drops because it expired, however it found it (read, sweep, full store), and of no other', () => {
    let now = 0;
    const map = new ExpiringMap<{ expiresAt: number }>(3, () => now);
    const expired: string[] = [];
    map.onExpire = (key) => expired.push(key);
    for (const k of ['a', 'b', 'c']) map.set(k, { expiresAt: 100 });
    map.delete('c');
    map.set('d', { expiresAt: 5000 });
    now = 200;
    expect(map.get('a')).toBeUndefined();
    map.set('e', { expiresAt: 5000 });
    map.set('f', { expiresAt: 5000 });
    expect(expired).toEqual(['a', 'b']);
    now = 6000;
    map.sweep();
    expect(expired).toEqual(['a', 'b', 'd', 'e', 'f']);
  });

  it('a watched map is swept whole: an entry that expires behind many longer-lived ones is dropped at the next sweep', () => {
    let now = 0;
    const watched = new ExpiringMap<{ expiresAt: number }>(1000, () => now);
    const unwatched = new ExpiringMap<{ expiresAt: number }>(1000, () => now);
    const expired: string[] = [];
    watched.onExpire = (key) => expired.push(key);
    for (const map of [watched, unwatched]) {
      for (let i = 0; i < 100; i++) map.set(`day-${i}`, { expiresAt: 86_400_000 });
      map.set('hour', { expiresAt: 3_600_000 });
    }
    now = 3_600_001;
    watched.sweep();
    unwatched.sweep();
    expect(expired).toEqual(['hour']);
    expect(watched.size).toBe(100);
    // The others stop at the first live entries (a cheap sweep every second); a read still finds it expired.
    expect(unwatched.size).toBe(101);
    expect(unwatched.get('hour')).toBeUndefined();
  });
});
