/**
 * oauthctl as a library: the protocol steps (pure), and the mock authorization server for tests.
 * The mock is also at 'oauthctl/mock', for code that wants only the server.
 */
export * from './oauth/pkce.js';
export * from './oauth/scope.js';
export * from './oauth/random.js';
export * from './oauth/errors.js';
export * from './oauth/authorization-request.js';
export * from './oauth/authorization-response.js';
export * from './oauth/token-request.js';
export * from './oauth/discovery.js';
export * from './oauth/www-authenticate.js';
export { createMockServer, loadMockConfig, validateMockConfig, MockConfigError } from './mock/index.js';
export type { MockServer, MockServerOptions, MockConfigInput } from './mock/index.js';
