import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../../src/mock/core/store.js';

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

  it('never holds more than its limit: the oldest entry goes first', () => {
    const map = new ExpiringMap<{ expiresAt: number }>(3, () => 0);
    for (const k of ['a', 'b', 'c', 'd']) map.set(k, { expiresAt: 10 });
    expect(map.size).toBe(3);
    expect(map.get('a')).toBeUndefined();
    expect(map.get('d')).toBeDefined();
  });
});
