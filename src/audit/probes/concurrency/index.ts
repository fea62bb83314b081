import type { AuditProbe } from '../../types.js';
import { codeParallelRedemptionProbe } from './code-parallel-redemption.js';
import { deviceCodeParallelProbe } from './device-code-parallel.js';
import { refreshParallelProbe } from './refresh-parallel.js';

/** Concurrency: one-time credentials used several times at once. */
export const CONCURRENCY_PROBES: readonly AuditProbe[] = [codeParallelRedemptionProbe, refreshParallelProbe, deviceCodeParallelProbe];
