import { isJsonObject } from '../../../oauth/json.js';

/** Token exchange policy of a client (RFC 8693 section 2.1): the audiences it may ask tokens for. */
export interface TokenExchangePolicy {
  audiences: readonly string[];
}

/** RFC 8628 section 3.2: device codes live 10 minutes and clients poll every 5 seconds unless configured. */
export const DEFAULT_DEVICE_CODE_LIFETIME = 600;
export const DEFAULT_DEVICE_INTERVAL = 5;

type Bad = (field: string, message: string) => void;

/** A client's `token_exchange`: `{"audiences": [...]}`, the audiences (or resources) it may exchange tokens for. */
export function validateTokenExchange(value: unknown, bad: Bad): TokenExchangePolicy | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value) || !Array.isArray(value.audiences) || Object.keys(value).some((k) => k !== 'audiences')) {
    bad('token_exchange', 'must be {"audiences": [...]}, the audiences this client may exchange tokens for');
    return undefined;
  }
  const audiences: string[] = [];
  value.audiences.forEach((a, i) => {
    if (typeof a !== 'string' || a === '') bad(`token_exchange.audiences[${i}]`, 'must be a non-empty string');
    else audiences.push(a);
  });
  return { audiences };
}

/** Top level `device_code_lifetime` and `device_interval`, in seconds (RFC 8628 section 3.2). */
export function validateDeviceSettings(input: Record<string, unknown>, fail: Bad): { deviceCodeLifetime: number; deviceInterval: number } {
  const seconds = (key: string, fallback: number, max: number): number => {
    const v = input[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
      fail(key, `must be a whole number of seconds from 1 to ${max}`);
      return fallback;
    }
    return v;
  };
  return { deviceCodeLifetime: seconds('device_code_lifetime', DEFAULT_DEVICE_CODE_LIFETIME, 86_400), deviceInterval: seconds('device_interval', DEFAULT_DEVICE_INTERVAL, 3600) };
}
