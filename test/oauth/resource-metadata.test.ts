import { describe, expect, it } from 'vitest';
import { compareResource, resourceChallenge, resourceMetadataLocations, ResourceMetadataError, validateResourceMetadata } from '../../src/oauth/resource-metadata.js';

describe('protected resource metadata (RFC 9728), the pure rules', () => {
  it('the well-known URL is inserted before the path (section 3.1), then the root, as the MCP SDK tries them', () => {
    expect(resourceMetadataLocations('https://rs.example/mcp/v1')).toEqual([
      { url: 'https://rs.example/.well-known/oauth-protected-resource/mcp/v1', how: 'path' },
      { url: 'https://rs.example/.well-known/oauth-protected-resource', how: 'root' },
    ]);
    expect(resourceMetadataLocations('https://rs.example/')).toEqual([{ url: 'https://rs.example/.well-known/oauth-protected-resource', how: 'root' }]);
  });

  it('the resource must be the URL (section 3.3); an origin or path prefix is what the SDK accepts; anything else is a mismatch', () => {
    expect(compareResource('https://rs.example/mcp', 'https://rs.example/mcp')).toBe('equal');
    expect(compareResource('https://rs.example/mcp', 'https://rs.example')).toBe('prefix');
    expect(compareResource('https://rs.example/mcp/tools', 'https://rs.example/mcp')).toBe('prefix');
    expect(compareResource('https://rs.example/mcp', 'https://rs.example/mcp/')).toBe('prefix');
    expect(compareResource('https://rs.example/mcpx', 'https://rs.example/mcp')).toBe('mismatch');
    expect(compareResource('https://rs.example/mcp', 'https://rs.example.evil/mcp')).toBe('mismatch');
    expect(compareResource('https://rs.example/mcp', 'http://rs.example/mcp')).toBe('mismatch');
    expect(compareResource('https://rs.example/mcp', 'not a url')).toBe('mismatch');
  });

  it("the 401's challenge: resource_metadata and scope, from a Bearer or DPoP challenge", () => {
    expect(resourceChallenge('Bearer error="invalid_token", scope="a b", resource_metadata="https://rs.example/.well-known/oauth-protected-resource"')).toEqual({
      error: 'invalid_token',
      scope: 'a b',
      resourceMetadata: 'https://rs.example/.well-known/oauth-protected-resource',
    });
    expect(resourceChallenge('Basic realm="x", DPoP algs="ES256", resource_metadata="https://m"')).toEqual({ resourceMetadata: 'https://m' });
    expect(resourceChallenge(undefined)).toEqual({});
    expect(resourceChallenge('Basic realm="x"')).toEqual({});
  });

  it('a document without resource, or with members of the wrong type, is refused', () => {
    expect(() => validateResourceMetadata([])).toThrow(ResourceMetadataError);
    expect(() => validateResourceMetadata({ authorization_servers: ['https://as'] })).toThrow(/no resource/);
    expect(() => validateResourceMetadata({ resource: 'https://rs', authorization_servers: 'https://as' })).toThrow(/authorization_servers is not an array/);
    expect(validateResourceMetadata({ resource: 'https://rs', extra: 1 })).toMatchObject({ resource: 'https://rs' });
  });
});
