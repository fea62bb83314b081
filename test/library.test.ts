import { describe, expect, it } from 'vitest';

describe('the package entry points', () => {
  it('exports the protocol steps and the mock server from the built package', async () => {
    const lib = await import('oauthctl');
    expect(lib.calculateCodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const server = await lib.createMockServer(undefined, { autoLogin: 'alice' });
    try {
      const metadata = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      expect(metadata.issuer).toBe(server.issuer);
    } finally {
      await server.close();
    }
  });

  it("exports the mock alone at 'oauthctl/mock'", async () => {
    const mock = await import('oauthctl/mock');
    expect(typeof mock.createMockServer).toBe('function');
  });
});
