import type { AuditProbe } from '../../types.js';
import { deviceCodeSingleUseProbe } from './device-code-single-use.js';
import { deviceSlowDownProbe } from './device-slow-down.js';
import { deviceUnknownUserCodeProbe } from './device-unknown-user-code.js';
import { deviceCodeClientBindingProbe } from './device-code-client-binding.js';
import { deviceCodeEntropyProbe } from './device-code-entropy.js';
import { devicePendingProbe } from './device-pending.js';
import { deviceUnknownDeviceCodeProbe } from './device-unknown-device-code.js';
import { deviceUserCodeEntropyProbe } from './device-user-code-entropy.js';

/** The device flow (RFC 8628). */
export const DEVICE_PROBES: readonly AuditProbe[] = [
  deviceCodeSingleUseProbe,
  deviceSlowDownProbe,
  deviceUnknownUserCodeProbe,
  deviceUserCodeEntropyProbe,
  deviceCodeEntropyProbe,
  devicePendingProbe,
  deviceUnknownDeviceCodeProbe,
  deviceCodeClientBindingProbe,
];
