// The resource identifiers (RFC 8707) a token may be bound to.
import { describe, expect, it } from 'vitest';
import { canonicalResource } from '../../src/oauth/resource.ts';

const BASE = 'https://compliance.example.com';

describe('canonicalResource', () => {
  it('names the MCP endpoint whatever toolsets its URL asks for', () => {
    expect(canonicalResource(BASE, `${BASE}/api/mcp/v1`)).toBe(`${BASE}/api/mcp/v1`);
    expect(canonicalResource(BASE, `${BASE}/api/mcp/v1/`)).toBe(`${BASE}/api/mcp/v1`);
    expect(canonicalResource(BASE, `${BASE}/api/mcp/v1?toolsets=all`)).toBe(`${BASE}/api/mcp/v1`);
    expect(canonicalResource(BASE, `${BASE}/api/mcp/v1?toolsets=risks&readonly=true`)).toBe(
      `${BASE}/api/mcp/v1`,
    );
  });

  it('names the service itself by its origin', () => {
    expect(canonicalResource(BASE, `${BASE}/`)).toBe(BASE);
    expect(canonicalResource(BASE, BASE)).toBe(BASE);
  });

  it('refuses other origins, other paths, fragments, credentials and a query on the origin', () => {
    expect(canonicalResource(BASE, 'https://other.example/api/mcp/v1')).toBeNull();
    expect(canonicalResource(BASE, 'http://compliance.example.com/api/mcp/v1')).toBeNull();
    expect(canonicalResource(BASE, `${BASE}/api/mcp/tools`)).toBeNull();
    expect(canonicalResource(BASE, `${BASE}/api/mcp/v1#x`)).toBeNull();
    expect(canonicalResource(BASE, 'https://user:pw@compliance.example.com/api/mcp/v1')).toBeNull();
    expect(canonicalResource(BASE, `${BASE}/?x=1`)).toBeNull();
    expect(canonicalResource(BASE, 'not a url')).toBeNull();
  });
});
