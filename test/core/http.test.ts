// HTTP edges of the surfaces: bodies, content types, sizes, methods, origins, unknown tools, OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import { BASE, createTestRuntime, createWorld, mcpPost, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { MAX_BODY_BYTES: '4096' } });
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

function post(path: string, body: BodyInit | null, headers: Record<string, string> = {}) {
  return runtime.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.aliceToken}`, ...headers },
    body,
  });
}

async function errorBody(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe('direct calls', () => {
  it('treats an empty body as {}', async () => {
    const response = await post('/api/mcp/tools/listOrganizations', null);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { organizations: unknown[] }).organizations).toHaveLength(1);
  });

  it('answers 400 invalid_json to malformed JSON', async () => {
    const response = await post('/api/mcp/tools/listOrganizations', '{"organization_id":', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('invalid_json');
  });

  it('answers 415 unsupported_media_type to a body that is not JSON', async () => {
    const response = await post('/api/mcp/tools/listOrganizations', 'organization_id=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(415);
    expect((await errorBody(response)).code).toBe('unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const response = await post('/api/mcp/tools/listOrganizations', '{}', {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(response.status).toBe(200);
  });

  it('answers 400 invalid_arguments to a JSON array or scalar', async () => {
    for (const body of ['[]', '"x"', '42', 'null']) {
      const response = await post('/api/mcp/tools/listOrganizations', body, {
        'content-type': 'application/json',
      });
      expect(response.status, body).toBe(400);
      expect((await errorBody(response)).code).toBe('invalid_arguments');
    }
  });

  it('answers 413 payload_too_large over the body limit, with or without Content-Length', async () => {
    const big = JSON.stringify({ organization_id: world.orgA, name: 'x'.repeat(10_000) });
    const response = await post('/api/mcp/tools/addVendor', big, { 'content-type': 'application/json' });
    expect(response.status).toBe(413);
    expect((await errorBody(response)).code).toBe('payload_too_large');
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await runtime.app.request(`${BASE}/api/mcp/tools/addVendor`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.aliceToken}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('refuses a body announced over the limit on its Content-Length alone, before authentication and on every route', async () => {
    for (const path of ['/api/mcp/tools/listOrganizations', '/api/mcp/v1', '/sign-in']) {
      const response = await runtime.app.request(`${BASE}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '104857600' },
        body: '{}',
      });
      expect(response.status, path).toBe(413);
      const error = await errorBody(response);
      expect(error.code).toBe('payload_too_large');
      expect(error.message).toContain('4096');
    }
    // At the limit it goes on to authentication as usual.
    const atLimit = await runtime.app.request(`${BASE}/api/mcp/tools/listOrganizations`, {
      method: 'POST',
      headers: { 'content-length': '4096' },
      body: ' '.repeat(4096),
    });
    expect(atLimit.status).toBe(401);
  });

  it('answers 404 unknown_tool to a tool that does not exist, after authentication', async () => {
    const response = await post('/api/mcp/tools/listUnicorns', '{}', { 'content-type': 'application/json' });
    expect(response.status).toBe(404);
    expect((await errorBody(response)).code).toBe('unknown_tool');
    const anonymous = await runtime.app.request(`${BASE}/api/mcp/tools/listUnicorns`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });

  it('names an unknown argument in invalid_arguments', async () => {
    const response = await post(
      '/api/mcp/tools/listVendors',
      JSON.stringify({ organization_id: world.orgA, colour: 'red' }),
      {
        'content-type': 'application/json',
      },
    );
    expect(response.status).toBe(400);
    const error = await errorBody(response);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('colour');
  });

  it('never shows a stack trace or SQL in an internal error', async () => {
    const broken = await createTestRuntime();
    const brokenWorld = await createWorld(broken);
    broken.database.client.close();
    const response = await broken.app.request(`${BASE}/api/mcp/tools/listVendors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${brokenWorld.aliceToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: brokenWorld.orgA }),
    });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text).error.code).toBe('internal');
    expect(text).not.toMatch(/select|sqlite|at \w+ \(|\.ts:/i);
    await broken.cleanup().catch(() => {});
  });
});

describe('MCP endpoint', () => {
  const auth = () => ({ authorization: `Bearer ${world.aliceToken}` });

  it.each(['GET', 'DELETE'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await runtime.app.request(`${BASE}/api/mcp/v1`, { method, headers: auth() });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = (await response.json()) as { jsonrpc: string; error: { code: number } };
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('answers a JSON-RPC parse error to malformed JSON', async () => {
    const response = await mcpPost(runtime, auth(), '{"jsonrpc":');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32700);
  });

  it('answers 413 over the body limit', async () => {
    const response = await mcpPost(runtime, auth(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'addVendor', arguments: { organization_id: world.orgA, name: 'x'.repeat(10_000) } },
    });
    expect(response.status).toBe(413);
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const response = await mcpPost(runtime, auth(), {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'listUnicorns', arguments: {} },
    });
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('listUnicorns');
  });

  it('answers invalid arguments with a tool result the model can correct from', async () => {
    const response = await mcpPost(runtime, auth(), {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        name: 'listRisks',
        arguments: { organization_id: world.orgA, filter: { status: 'BURNING' } },
      },
    });
    const body = (await response.json()) as {
      result: {
        isError: boolean;
        structuredContent: { error: { code: string; details: { path: string }[] } };
      };
    };
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent.error.code).toBe('invalid_arguments');
    expect(body.result.structuredContent.error.details[0]?.path).toBe('filter.status');
  });

  it('is stateless: no Mcp-Session-Id, and tools/list works without initialize', async () => {
    const init = await mcpPost(runtime, auth(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const initBody = (await init.json()) as { result: { protocolVersion: string; capabilities: unknown } };
    expect(initBody.result.protocolVersion).toBe('2025-03-26');
    expect(initBody.result.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/ui': {} },
    });
    const list = await mcpPost(
      runtime,
      { ...auth(), 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    const body = (await list.json()) as { result: { tools: { name: string }[] } };
    // ?toolsets=all: the core first, then whole toolsets within the budget.
    expect(body.result.tools.length).toBeGreaterThan(40);
    expect(body.result.tools.map((tool) => tool.name)).toContain('findTools');
  });

  it('serves a client that only accepts application/json', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/v1`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('refuses a foreign Origin with 403, and a foreign Host on a loopback server', async () => {
    const evilOrigin = await mcpPost(
      runtime,
      { ...auth(), origin: 'http://evil.example.com' },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
    );
    expect(evilOrigin.status).toBe(403);
    expect((await errorBody(evilOrigin)).code).toBe('forbidden');
    const evilHost = await runtime.app.request('http://evil.example.com/api/mcp/v1', {
      method: 'POST',
      headers: {
        ...auth(),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(evilHost.status).toBe(403);
  });

  it('accepts a loopback Origin on any port and requests without an Origin', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:8787']) {
      const response = await mcpPost(
        runtime,
        { ...auth(), origin },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
      );
      expect(response.status, origin).toBe(200);
    }
  });

  it('accepts an origin listed in ALLOWED_ORIGINS on a public server, and its own origin', async () => {
    const open = await createTestRuntime({
      env: { ALLOWED_ORIGINS: 'https://app.example.com' },
      loopbackOnly: false,
    });
    const openWorld = await createWorld(open);
    const call = (origin: string) =>
      open.app.request('https://compliance.example.com/api/mcp/v1', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${openWorld.aliceToken}`,
          origin,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    expect((await call('https://app.example.com')).status).toBe(200);
    expect((await call('https://compliance.example.com')).status).toBe(200);
    expect((await call('https://evil.example.com')).status).toBe(403);
    await open.cleanup();
  });
});

describe('tool routes', () => {
  it('answers another method than POST with not_found saying how to call a tool, Allow: POST', async () => {
    for (const [method, path] of [
      ['GET', '/api/mcp/tools/listRisks'],
      ['DELETE', '/api/mcp/tools/deleteRisk'],
      ['GET', '/api/mcp/listVendors'],
    ] as const) {
      const response = await runtime.app.request(`${BASE}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('allow')).toBe('POST');
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain('POST /api/mcp/tools/<tool>');
    }
    // Routes of their own keep answering.
    expect((await runtime.app.request(`${BASE}/api/mcp/openapi.json`)).status).toBe(200);
    // The MCP endpoint authenticates first (401 without a token), then refuses the method.
    expect((await runtime.app.request(`${BASE}/api/mcp/v1`)).status).toBe(401);
    const authorization = `Bearer ${world.aliceToken}`;
    expect((await runtime.app.request(`${BASE}/api/mcp/v1`, { headers: { authorization } })).status).toBe(
      405,
    );
  });
});

describe('OpenAPI', () => {
  it('describes every tool as a POST operation with its schemas, without authentication', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<
        string,
        {
          post: {
            operationId: string;
            description: string;
            requestBody: unknown;
            responses: Record<string, unknown>;
          };
        }
      >;
      components: { securitySchemes: { bearerAuth: { scheme: string } } };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers[0]?.url).toBe(BASE);
    expect(document.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    const operations = Object.values(document.paths).map((path) => path.post);
    expect(operations.map((operation) => operation.operationId)).toEqual([...TOOLS.keys()]);
    for (const operation of operations) {
      expect(operation.description.length).toBeLessThanOrEqual(300);
      // Every status the direct surface answers with (README, "Errors").
      expect(Object.keys(operation.responses).sort()).toEqual(
        ['200', '400', '401', '403', '404', '409', '413', '415', '429', '500'].sort(),
      );
    }
  });

  it('refuses to narrow to a tool that does not exist', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json?tools=listRisks,listUnicorns`);
    expect(response.status).toBe(400);
    const error = await errorBody(response);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('listUnicorns');
  });

  it('can be narrowed to some tools for clients with an operation limit', async () => {
    const response = await runtime.app.request(
      `${BASE}/api/mcp/openapi.json?tools=listOrganizations,listRisks`,
    );
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual([
      '/api/mcp/tools/listOrganizations',
      '/api/mcp/tools/listRisks',
    ]);
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After once a token used its calls of the minute', async () => {
    const limited = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    const limitedWorld = await createWorld(limited);
    const call = () =>
      limited.app.request(`${BASE}/api/mcp/tools/listOrganizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${limitedWorld.aliceToken}` },
      });
    for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await errorBody(refused)).code).toBe('rate_limited');
    // Another token of the same user has its own budget.
    const other = await limited.app.request(`${BASE}/api/mcp/tools/listOrganizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedWorld.aliceReadToken}` },
    });
    expect(other.status).toBe(200);
    await limited.cleanup();
  });
});
