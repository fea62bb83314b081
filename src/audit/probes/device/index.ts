import type { AuditProbe } from '../../types.js';
import { deviceCodeClientBindingProbe } from './device-code-client-binding.js';
import { deviceCodeEntropyProbe } from './device-code-entropy.js';
import { devicePendingProbe } from './device-pending.js';
import { deviceUnknownDeviceCodeProbe } from './device-unknown-device-code.js';
import { deviceUserCodeEntropyProbe } from './device-user-code-entropy.js';

/** The device flow (RFC 8628) beyond the first rounds. */
export const DEVICE_PROBES: readonly AuditProbe[] = [deviceUserCodeEntropyProbe, deviceCodeEntropyProbe, devicePendingProbe, deviceUnknownDeviceCodeProbe, deviceCodeClientBindingProbe];
