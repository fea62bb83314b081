/** The grant types beyond the authorization code (RFC 6749 section 4), by their registered names. */
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
export const REFRESH_TOKEN_GRANT = 'refresh_token';
/** RFC 6749 section 4.4. */
export const CLIENT_CREDENTIALS_GRANT = 'client_credentials';
/** RFC 8628 section 3.4. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8693 section 2.1. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 section 2.1: a JWT as the authorization grant. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant): the ID-JAG's token type and JWT typ. */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/** RFC 8693 section 3: token type identifiers. */
export const TOKEN_TYPES = {
  access_token: 'urn:ietf:params:oauth:token-type:access_token',
  refresh_token: 'urn:ietf:params:oauth:token-type:refresh_token',
  id_token: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  saml1: 'urn:ietf:params:oauth:token-type:saml1',
  saml2: 'urn:ietf:params:oauth:token-type:saml2',
} as const;
export const ACCESS_TOKEN_TYPE = TOKEN_TYPES.access_token;

/** A token type as given on the command line: a short name (`access_token`, `jwt`) or a URN kept as it is. */
export function tokenTypeUrn(value: string): string {
  return value in TOKEN_TYPES ? TOKEN_TYPES[value as keyof typeof TOKEN_TYPES] : value;
}

/**
 * RFC 8628 section 6.1: user codes from an alphabet without vowels (no words, no 0/O or 1/I
 * confusion), 8 letters shown as XXXX-XXXX: 20^8 (about 2^34.5) values.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A user code as typed (any case, dashes and spaces anywhere) in its canonical form: 8 capital letters. */
export function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '');
}

/** XXXX-XXXX. */
export function formatUserCode(code: string): string {
  return code.length === USER_CODE_LENGTH ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
}

/**
 * RFC 8693 section 2.2.1: issued_token_type says what the server issued; a client that asked for one
 * type (requested_token_type) and got another must not use it as if it were the asked one (a refresh
 * token taken for an access token, say). Undefined when it matches, or when nothing in particular was asked.
 */
export function issuedTokenTypeProblem(requested: string | undefined, issued: unknown): string | undefined {
  if (issued === undefined) return 'the response has no issued_token_type (RFC 8693 section 2.2.1 requires it)';
  if (typeof issued !== 'string') return 'the issued_token_type of the response is not a string (RFC 8693 section 2.2.1)';
  if (requested !== undefined && issued !== requested) return `issued_token_type ${issued} is not the requested_token_type ${requested} (RFC 8693 section 2.2.1)`;
  return undefined;
}
