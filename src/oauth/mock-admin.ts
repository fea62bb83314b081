/**
 * How oauthctl's mock says what it is: its metadata's `service_documentation` (RFC 8414 section 2:
 * "a page containing human-readable information that developers might want or need to know when
 * using the authorization server") is its own flows page, `{issuer}/_mock/`, announced only while the
 * admin API there answers. A client that sees it can tell the user how to act as the mock's user
 * (approve a CIBA request with `POST {issuer}/_mock/ciba`). Any server could announce the same: what
 * is built from it is only printed, never sent.
 */
export function mockServiceDocumentation(issuer: string): string {
  return `${issuer}/_mock/`;
}

/** The mock's admin API root when `metadata` is the mock's (its own flows page as service_documentation), else undefined. */
export function mockAdminApi(metadata: { issuer?: unknown; service_documentation?: unknown } | undefined): string | undefined {
  if (typeof metadata?.issuer !== 'string' || metadata.service_documentation !== mockServiceDocumentation(metadata.issuer)) return undefined;
  return mockServiceDocumentation(metadata.issuer);
}
