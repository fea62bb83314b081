import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, RequestDeadline } from '../../src/http/deadline.js';

describe('RequestDeadline', () => {
  it('at the deadline: listeners are told once with DeadlineExceeded, expired is true, and a signal asked for afterwards is aborted too', async () => {
    const deadline = new RequestDeadline(20);
    const heard: unknown[] = [];
    deadline.onAbort((reason) => heard.push(reason));
    const early = deadline.signal;
    await expect.poll(() => deadline.aborted).toBe(true);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeInstanceOf(DeadlineExceeded);
    expect([deadline.expired, early.aborted, deadline.signal.aborted]).toEqual([true, true, true]);
    expect(early.reason).toBe(deadline.reason);
    deadline.clear();
  });

  it("the caller's signal stops the request without counting as the deadline; an unsubscribed listener hears nothing", () => {
    const outer = new AbortController();
    const deadline = new RequestDeadline(60_000, outer.signal);
    const heard: unknown[] = [];
    const unsubscribe = deadline.onAbort(() => heard.push('removed'));
    deadline.onAbort((reason) => heard.push(reason));
    unsubscribe();
    outer.abort('user stopped');
    expect([deadline.aborted, deadline.expired, deadline.reason, heard]).toEqual([true, false, 'user stopped', ['user stopped']]);
    deadline.clear();

    const already = new AbortController();
    already.abort('before');
    const late = new RequestDeadline(60_000, already.signal);
    expect([late.aborted, late.reason, late.signal.aborted]).toEqual([true, 'before', true]);
    late.clear();
  });

  it('clear stops the timer: a cleared deadline never aborts', async () => {
    const deadline = new RequestDeadline(1);
    deadline.clear();
    const later = new RequestDeadline(30);
    await expect.poll(() => later.aborted).toBe(true);
    expect(deadline.aborted).toBe(false);
  });
});
