import { loadSelectedProfile, mergeUnderFlags, profileToFlowOptions } from '../client/config-store.js';
import type { Renderer } from '../output/render.js';
import type { FlowOptionsInput } from './flow-options.js';
import type { IO } from './io.js';

/**
 * `--profile NAME` (or OAUTHCTL_PROFILE) under the flags: the profile's values fill in every flow
 * option the command line left out. Nothing is read when no profile is asked for.
 */
export async function applyProfile<T extends FlowOptionsInput>(raw: T, io: IO, renderer: Renderer): Promise<T> {
  const selection = await loadSelectedProfile({ profile: raw.profile, config: raw.config }, io.env);
  if (!selection) return raw;
  for (const warning of selection.warnings) renderer.warn(warning);
  renderer.info(`Using profile ${selection.name} from ${selection.path}`);
  const secretGiven = raw.clientSecret !== undefined || Boolean(io.env.OAUTHCTL_CLIENT_SECRET);
  const { revocationEndpoint: _revocation, ...fromProfile } = profileToFlowOptions(selection.name, selection.profile, io.env, secretGiven);
  return { ...mergeUnderFlags(raw, fromProfile), profile: selection.name };
}
