import type { AddressPolicy } from '../../../http/address-policy.js';
import { isJsonObject } from '../../../oauth/json.js';
import { unknownKeys } from './config-fields.js';

/**
 * The mock's outbound calls made for a client (metadata documents, jwks_uri, back-channel logout,
 * CIBA notifications), validated at start like the rest of config.ts: `"outbound":
 * {"private_networks": true}` lets them reach private and unique-local addresses (a lab's network);
 * by default only loopback and public addresses (src/http/address-policy.ts). Top level only: one
 * server, one network.
 */
export interface OutboundConfig {
  outbound: AddressPolicy;
}

export const OUTBOUND_TOP_KEYS = ['outbound'];

/** The policy in a refusal's words: what it refuses, and how a lab allows its own ranges (docs/mock.md). */
export const OUTBOUND_RULE = 'no link-local, private, unique-local, unspecified or multicast address; config "outbound": {"private_networks": true} allows private ranges';

export function validateOutboundTop(input: Record<string, unknown>, fail: (field: string, message: string) => void): OutboundConfig {
  const outbound: AddressPolicy = { privateNetworks: false };
  const raw = input.outbound;
  if (raw === undefined) return { outbound };
  if (!isJsonObject(raw)) {
    fail('outbound', 'must be an object: {"private_networks": true} lets the mock reach private addresses');
    return { outbound };
  }
  unknownKeys(raw, ['private_networks'], 'outbound', fail);
  if (raw.private_networks !== undefined) {
    if (typeof raw.private_networks !== 'boolean') fail('outbound.private_networks', 'must be true or false');
    else outbound.privateNetworks = raw.private_networks;
  }
  return { outbound };
}
