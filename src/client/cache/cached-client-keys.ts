import type { ClientCredentials } from '../../oauth/token-request.js';
import type { CachedClientKeys, CachedTokens } from '../../store/token-cache.js';
import type { DpopSession } from '../flows/dpop.js';
import type { FlowConfig } from '../flows/flow-config.js';

/** What a cached login keeps of the flow's keys (undefined when it used none). */
export async function clientKeysOf(config: FlowConfig): Promise<CachedClientKeys | undefined> {
  const keys: CachedClientKeys = {};
  if (config.dpop) keys.dpop_jwk = (await import('../flows/keys.js')).exportDpopKey(config.dpop.key) as Record<string, unknown>;
  if (config.signingKey?.file !== undefined) keys.signing_key_file = config.signingKey.file;
  if (config.signingKey?.kid !== undefined) keys.signing_key_id = config.signingKey.kid;
  if (config.assertionAudience !== undefined) keys.assertion_audience = config.assertionAudience;
  if (config.tlsClientCertificate) {
    keys.tls_cert_file = config.tlsClientCertificate.certFile;
    keys.tls_key_file = config.tlsClientCertificate.keyFile;
  }
  return Object.keys(keys).length > 0 ? keys : undefined;
}

/** The DPoP session of a cached login, with the key its tokens are bound to. */
export async function dpopSessionOf(entry: CachedTokens): Promise<DpopSession | undefined> {
  const jwk = entry.client_keys?.dpop_jwk;
  if (jwk === undefined) return undefined;
  const [{ importDpopKey }, { DpopSession }] = await Promise.all([import('../flows/keys.js'), import('../flows/dpop.js')]);
  return new DpopSession(await importDpopKey(jwk));
}

/** The signing key and audience a refresh by a private_key_jwt client needs. */
export async function assertionKeysOf(entry: CachedTokens): Promise<Pick<ClientCredentials, 'signingKey' | 'assertionAudience'>> {
  const keys = entry.client_keys;
  const out: Pick<ClientCredentials, 'signingKey' | 'assertionAudience'> = {};
  if (keys?.signing_key_file !== undefined) out.signingKey = await (await import('../flows/keys.js')).loadSigningKey(keys.signing_key_file, keys.signing_key_id);
  if (keys?.assertion_audience !== undefined) out.assertionAudience = keys.assertion_audience;
  return out;
}

/** The client certificate of a cached login (RFC 8705 section 2), for the HTTP client of its requests; undefined when it has none. */
export async function clientCertificateOf(entry: CachedTokens): Promise<{ cert: string; key: string } | undefined> {
  const keys = entry.client_keys;
  if (keys?.tls_cert_file === undefined) return undefined;
  return (await import('../flows/keys.js')).readClientCertificate(keys.tls_cert_file, keys.tls_key_file);
}
