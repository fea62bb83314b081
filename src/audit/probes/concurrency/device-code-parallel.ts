import { authorizeDevice, completeUriOf, pollDevice } from '../../device.js';
import { race, raceSummary, PARALLEL_REQUESTS } from '../../parallel.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 8628 section 3.5: an approved device code polled several times at once gets tokens at most once. */
export const deviceCodeParallelProbe: AuditProbe = {
  id: 'device-code-parallel',
  title: 'an approved device code polled several times at once gets tokens at most once',
  rfc: 'RFC 8628 §3.5',
  category: 'concurrency',
  threat: 'RFC 8628 §5.4 (a device code used by more than one device); RFC 6819 §5.1.5.4',
  remedy: 'Mark a device code used atomically before issuing its tokens.',
  needsFlow: true,
  async run(ctx) {
    const grant = await authorizeDevice(ctx);
    const page = await ctx.walkPage(completeUriOf(grant));
    if (page.kind === 'redirect' || page.status >= 400) return fail(`the verification page did not approve the device: HTTP ${page.kind === 'redirect' ? 'redirect' : page.status}`);
    const { exchanges, successes } = await race(() => pollDevice(ctx, grant));
    const summary = raceSummary(exchanges);
    if (successes.length > 1) return fail(`${successes.length} of ${PARALLEL_REQUESTS} parallel polls got tokens (${summary})`);
    if (successes.length === 0 && !exchanges.some((x) => x.error?.error === 'slow_down')) return warn(`no poll got tokens (${summary})`);
    return pass(`${successes.length === 1 ? 'one success' : 'no success'} in ${PARALLEL_REQUESTS} (${summary})`);
  },
};
