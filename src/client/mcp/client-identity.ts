import { FlowError } from '../../errors.js';
import type { AuthorizationServerMetadata } from '../../oauth/discovery.js';
import type { Renderer } from '../../output/render.js';
import type { Env } from '../../store/paths.js';
import { readRegistration, saveRegistration } from '../../store/registrations.js';
import type { HttpClient } from '../http/http.js';
import { usableKeptRegistration } from '../resources/kept-registration.js';
import { registerClient, sameRedirect, storedRegistration, type ClientRegistrationRequest } from '../resources/registration.js';

const SPEC = 'MCP authorization 2025-11-25, Client Registration Approaches';

/** Who the client is at this authorization server, and how that was decided. */
export interface McpClientIdentity {
  clientId: string;
  clientSecret?: string | undefined;
  /** The method the registration agreed on; undefined leaves it to the flow options. */
  authMethod?: string | undefined;
  how: 'pre-registered' | 'metadata-document' | 'kept-registration' | 'registered';
}

export interface IdentityInput {
  /** --client-id (with --client-secret, --signing-key): pre-registered. */
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** --client-metadata-url: the client's own Client ID Metadata Document. */
  clientMetadataUrl?: string | undefined;
  issuer: string;
  metadata?: AuthorizationServerMetadata | undefined;
  registrationEndpoint?: string | undefined;
  redirectUri: string;
  http: HttpClient;
  env: Env;
  renderer: Renderer;
}

/**
 * The specification's order: a pre-registered client; the Client ID Metadata Document's URL as
 * client_id when the server announces `client_id_metadata_document_supported`; a registration kept for
 * this issuer; else dynamic client registration (RFC 7591), kept per issuer for the next run.
 */
export async function chooseClientIdentity(input: IdentityInput): Promise<McpClientIdentity> {
  const { renderer } = input;
  renderer.step(`Client identity (${SPEC})`);
  if (input.clientId !== undefined && input.clientId !== '') {
    renderer.info(`pre-registered client ${input.clientId} (--client-id)`);
    return { clientId: input.clientId, clientSecret: input.clientSecret, how: 'pre-registered' };
  }
  if (input.clientMetadataUrl !== undefined) {
    if (input.metadata?.client_id_metadata_document_supported === true) {
      renderer.info(`client_id ${input.clientMetadataUrl}: the server announces client_id_metadata_document_supported (draft-ietf-oauth-client-id-metadata-document)`);
      return { clientId: input.clientMetadataUrl, authMethod: 'none', how: 'metadata-document' };
    }
    renderer.info('the server does not announce client_id_metadata_document_supported: --client-metadata-url is not used');
  }
  const found = await readRegistration(input.env, input.issuer);
  const kept = found && found.redirect_uris.some((u) => sameRedirect(u, input.redirectUri)) ? await usableKeptRegistration(input.http, input.env, found, renderer) : undefined;
  if (kept) {
    renderer.info(`the client ${kept.client_id} registered at ${input.issuer} before (oauthctl register --delete --issuer ${input.issuer} removes it)`);
    return { clientId: kept.client_id, clientSecret: kept.client_secret, authMethod: kept.token_endpoint_auth_method, how: 'kept-registration' };
  }
  const endpoint = input.registrationEndpoint;
  if (endpoint === undefined) {
    throw new FlowError(`${input.issuer} offers no registration_endpoint and no client ID metadata documents: the client must be pre-registered`, `give --client-id (and --client-secret); ${SPEC}`);
  }
  const request: ClientRegistrationRequest = {
    redirect_uris: [input.redirectUri],
    token_endpoint_auth_method: registrationAuthMethod(input.metadata),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    client_name: 'oauthctl',
    application_type: 'native',
  };
  renderer.info(`dynamic client registration (RFC 7591): POST ${endpoint}`);
  const response = await registerClient(input.http, endpoint, request);
  const stored = storedRegistration(input.issuer, response, Date.now());
  const path = await saveRegistration(input.env, stored);
  renderer.ok(`registered client ${response.client_id} (token endpoint authentication ${stored.token_endpoint_auth_method}); kept in ${path}`);
  return { clientId: stored.client_id, clientSecret: stored.client_secret, authMethod: stored.token_endpoint_auth_method, how: 'registered' };
}

/** A public client where the server takes one, else the secret method it lists first (RFC 8414 section 2). */
function registrationAuthMethod(metadata: AuthorizationServerMetadata | undefined): string {
  const listed = Array.isArray(metadata?.token_endpoint_auth_methods_supported) ? metadata.token_endpoint_auth_methods_supported : undefined;
  if (listed === undefined || listed.includes('none')) return 'none';
  return listed.find((m) => m === 'client_secret_basic' || m === 'client_secret_post') ?? 'none';
}

/**
 * The scope to ask for (MCP authorization 2025-11-25, Scope Selection Strategy): the challenge's, else
 * the resource's scopes_supported, else none; and offline_access where the authorization server lists
 * it, for a refresh token (SEP-2207).
 */
export function chooseScope(challengeScope: string | undefined, scopesSupported: readonly string[] | undefined, serverScopes: unknown): { scopes: string[]; from: string } {
  const split = (s: string) => s.split(/[\s+]+/).filter(Boolean);
  const base = challengeScope !== undefined ? split(challengeScope) : scopesSupported?.length ? [...scopesSupported] : [];
  const from =
    challengeScope !== undefined ? "the challenge's scope" : scopesSupported?.length ? "the resource metadata's scopes_supported" : 'neither the challenge nor the resource metadata names one';
  if (base.length > 0 && Array.isArray(serverScopes) && serverScopes.includes('offline_access') && !base.includes('offline_access')) {
    return { scopes: [...base, 'offline_access'], from: `${from}, and offline_access (the authorization server lists it)` };
  }
  return { scopes: base, from };
}
