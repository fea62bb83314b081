import type { Command } from 'commander';
import { parseHttpUrl } from '../program/command.js';

/** Options naming a cached login (token, status, logout): a profile, or the server and client. */
export function addCachedLoginOptions(cmd: Command): Command {
  return cmd
    .option('--profile <NAME>', 'the profile the login was made with (also OAUTHCTL_PROFILE)')
    .option('--config <FILE>', 'the profiles file (default $XDG_CONFIG_HOME/oauthctl/config.json)')
    .option('--issuer <URL>', 'without a profile: the issuer the login was made with', parseHttpUrl('--issuer'))
    .option('--auth-url <URL>', 'without a profile: the --auth-url the login was made with', parseHttpUrl('--auth-url'))
    .option('--token-endpoint <URL>', 'without a profile: the token endpoint the login was made with', parseHttpUrl('--token-endpoint'))
    .option('--client-id <ID>', 'without a profile: the client id the login was made with')
    .option('--protected-resource <URL>', 'the login made with --protected-resource URL (RFC 9728)', parseHttpUrl('--protected-resource'));
}
