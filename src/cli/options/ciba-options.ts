import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { CIBA_DELIVERY_MODES, type CibaDeliveryMode } from '../../oauth/ciba.js';
import { parseInteger } from '../program/command.js';

/** `login --ciba` and its options (OpenID Connect CIBA Core 1.0 section 7.1). */
export interface CibaOptionsInput {
  ciba?: boolean;
  loginHint?: string;
  idTokenHint?: string;
  bindingMessage?: string;
  acrValues?: string;
  requestedExpiry?: number;
  cibaMode?: string;
  clientNotificationEndpoint?: string;
}

/** What login --ciba runs with, checked. */
export interface CibaSettings {
  mode: CibaDeliveryMode;
  loginHint?: string;
  idTokenHint?: string;
  bindingMessage?: string;
  acrValues?: string;
  requestedExpiry?: number;
  /** Ping mode: where to listen (a loopback http URL), or undefined for a free port on 127.0.0.1. */
  notificationEndpoint?: URL;
}

const OWN_FLAGS = ['loginHint', 'idTokenHint', 'bindingMessage', 'acrValues', 'requestedExpiry', 'cibaMode', 'clientNotificationEndpoint'] as const;
const FLAG_NAMES: Record<(typeof OWN_FLAGS)[number], string> = {
  loginHint: '--login-hint',
  idTokenHint: '--id-token-hint',
  bindingMessage: '--binding-message',
  acrValues: '--acr-values',
  requestedExpiry: '--requested-expiry',
  cibaMode: '--ciba-mode',
  clientNotificationEndpoint: '--client-notification-endpoint',
};

export function addCibaOptions(cmd: Command): Command {
  return cmd
    .option('--ciba', 'OpenID Connect CIBA: ask the server to sign the user in on their own device (no browser here), then wait for the tokens')
    .option('--login-hint <HINT>', 'with --ciba: who is to sign in (a user name, email or subject the server knows)')
    .option('--id-token-hint <JWT>', 'with --ciba: who is to sign in, as an ID token the server issued (instead of --login-hint)')
    .option('--binding-message <TEXT>', "with --ciba: a short text shown both here and on the user's device, so that they approve this request")
    .option('--acr-values <VALUES>', 'with --ciba: the authentication context classes asked for, space-separated')
    .option('--requested-expiry <SECONDS>', 'with --ciba: ask the request to live at most this long', parseInteger('--requested-expiry', 1, 86_400))
    .option('--ciba-mode <MODE>', `with --ciba: how the tokens' readiness is learnt: ${CIBA_DELIVERY_MODES.join(' (default) or ')} (the server calls a loopback endpoint here)`)
    .option('--client-notification-endpoint <URL>', 'with --ciba-mode ping: the loopback http URL registered with the server as the notification endpoint (default: a free port on 127.0.0.1)');
}

/** The CIBA options checked: bad input is a UsageError naming the flag (exit 2). */
export function parseCibaOptions(raw: CibaOptionsInput): CibaSettings {
  if (!raw.ciba) {
    const stray = OWN_FLAGS.find((name) => raw[name] !== undefined);
    if (stray) throw new UsageError(`${FLAG_NAMES[stray]} is only for login --ciba`, 'add --ciba, or leave it out');
    return { mode: 'poll' };
  }
  // Section 7.1: exactly one hint names the user.
  if ((raw.loginHint === undefined) === (raw.idTokenHint === undefined)) {
    throw new UsageError(
      raw.loginHint === undefined ? '--ciba needs to know who signs in: --login-hint or --id-token-hint is missing' : '--login-hint and --id-token-hint cannot be used together',
      'give --login-hint HINT (a user name or email the server knows), or --id-token-hint JWT',
    );
  }
  const mode = (raw.cibaMode ?? 'poll') as CibaDeliveryMode;
  if (!CIBA_DELIVERY_MODES.includes(mode)) throw new UsageError(`--ciba-mode must be ${CIBA_DELIVERY_MODES.join(' or ')}, got ${JSON.stringify(raw.cibaMode)}`, 'push mode is not supported');
  const settings: CibaSettings = { mode };
  if (raw.loginHint !== undefined) settings.loginHint = raw.loginHint;
  if (raw.idTokenHint !== undefined) settings.idTokenHint = raw.idTokenHint;
  if (raw.bindingMessage !== undefined) settings.bindingMessage = raw.bindingMessage;
  if (raw.acrValues !== undefined) settings.acrValues = raw.acrValues;
  if (raw.requestedExpiry !== undefined) settings.requestedExpiry = raw.requestedExpiry;
  if (raw.clientNotificationEndpoint !== undefined) {
    if (mode !== 'ping') throw new UsageError('--client-notification-endpoint is only for --ciba-mode ping', 'add --ciba-mode ping, or leave it out');
    settings.notificationEndpoint = loopbackEndpoint(raw.clientNotificationEndpoint);
  }
  return settings;
}

/** The ping is received here, so the endpoint must be one this machine listens on: http on a loopback address, with a port. */
function loopbackEndpoint(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--client-notification-endpoint is not a valid URL: ${JSON.stringify(value)}`, 'give the loopback URL registered with the server, e.g. http://127.0.0.1:8765/ciba');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'http:' || !['127.0.0.1', '::1', 'localhost'].includes(host) || url.port === '' || url.search !== '' || url.hash !== '') {
    throw new UsageError(
      `--client-notification-endpoint must be http on 127.0.0.1, [::1] or localhost with a port and no query, got ${JSON.stringify(value)}`,
      'oauthctl listens on it; a public URL can forward to such a loopback one',
    );
  }
  return url;
}
