import { describe, expect, it } from 'vitest';
import { RequestLog, type RecordedRequest } from '../../src/mock/core/http/request-log.js';

const request = (id: number, extra: Partial<RecordedRequest> = {}): RecordedRequest => ({
  id,
  time: 1_700_000_000_000 + id,
  method: 'GET',
  path: '/authorize',
  endpoint: 'authorize',
  query: `state=s${id}`,
  form: undefined,
  body: undefined,
  headers: { host: '127.0.0.1' },
  status: 302,
  clientId: undefined,
  outcome: 'code issued',
  error: undefined,
  errorDescription: undefined,
  durationMs: 0.5,
  flow: undefined,
  fault: undefined,
  ...extra,
});

describe('the request log ring', () => {
  it('keeps the last requests, oldest first, once it has wrapped around more than once', () => {
    const log = new RequestLog(3);
    for (let id = 1; id <= 8; id++) log.add(request(id, id === 7 ? { error: 'invalid_grant', status: 400 } : {}));
    const kept = log.entries();
    expect(kept.map((e) => e.id)).toEqual([6, 7, 8]);
    expect(kept.map((e) => e.query)).toEqual(['state=s6', 'state=s7', 'state=s8']);
    // A reused slot takes every field of the new request, undefined ones too.
    expect(kept[1]).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(kept[2]).toMatchObject({ error: undefined, status: 302 });
  });

  it('hands out copies: what was read does not change when later requests reuse the slots', () => {
    const log = new RequestLog(2);
    log.add(request(1));
    log.add(request(2));
    const before = log.entries();
    log.add(request(3));
    log.add(request(4));
    expect(before.map((e) => e.id)).toEqual([1, 2]);
    expect(log.entries().map((e) => e.id)).toEqual([3, 4]);
  });

  it('is empty after clear, and fills again', () => {
    const log = new RequestLog(2);
    log.add(request(1));
    log.clear();
    expect(log.entries()).toEqual([]);
    log.add(request(2));
    expect(log.entries().map((e) => e.id)).toEqual([2]);
  });
});
