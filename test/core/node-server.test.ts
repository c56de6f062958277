// The Node host over a real socket: demo seed on first start, SDK client over HTTP, the call log and last_used_at.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { desc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { toolCalls } from '../../src/db/schema.ts';
import { type RunningServer, startNodeServer } from '../../src/node.ts';

let dir: string;
let server: RunningServer;
const lines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-node-'));
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'node.db')}`, PORT: '0', HOST: '127.0.0.1' });
  server = await startNodeServer(config, (line) => lines.push(line));
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Node host', () => {
  it('listens on 127.0.0.1 on a free port and prints the MCP URL, the demo token once and a curl line', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const output = lines.join('\n');
    expect(output).toContain(`${server.url}/api/mcp/v1`);
    expect(server.demo?.token).toMatch(/^cmcp_/);
    expect(output.split(server.demo?.token ?? '-').length - 1).toBe(2);
    expect(output).toContain(`curl -s -X POST ${server.url}/api/mcp/tools/listOrganizations`);
  });

  it('serves the SDK client over HTTP with the demo organization and records every call', async () => {
    const client = new Client({ name: 'socket-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp/v1`), {
        requestInit: { headers: { authorization: `Bearer ${server.demo?.token}` } },
      }),
    );
    const organizations = await client.callTool({ name: 'listOrganizations', arguments: {} });
    const listed = organizations.structuredContent as { organizations: { id: string; name: string }[] };
    expect(listed.organizations).toEqual([
      expect.objectContaining({ id: server.demo?.organization_id, name: 'Acme Health (demo)' }),
    ]);
    const summary = await client.callTool({
      name: 'getComplianceSummary',
      arguments: { organization_id: server.demo?.organization_id },
    });
    const counts = summary.structuredContent as {
      risks: { total: number };
      audits: { in_progress: number };
      obligations: { overdue: number };
    };
    expect(counts.risks.total).toBe(3);
    expect(counts.audits.in_progress).toBe(1);
    expect(counts.obligations.overdue).toBe(1);
    await client.callTool({ name: 'getRisk', arguments: { id: 'rsk_000000000000000000000000' } });
    await client.close();

    await server.runtime.usage.flush();
    const rows = await server.runtime.database.db
      .select()
      .from(toolCalls)
      .orderBy(desc(toolCalls.id))
      .limit(3);
    expect(rows.map((row) => [row.tool, row.surface, row.outcome])).toEqual([
      ['getRisk', 'mcp', 'not_found'],
      ['getComplianceSummary', 'mcp', 'ok'],
      ['listOrganizations', 'mcp', 'ok'],
    ]);
    expect(rows[1]?.organization_id).toBe(server.demo?.organization_id);
    const [token] = await server.runtime.tokens.list(rows[0]?.user_id ?? '');
    expect(token?.last_used_at).toBe(rows[0]?.created_at);
  });

  it('answers direct calls over the socket', async () => {
    const response = await fetch(`${server.url}/api/mcp/listVendors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.demo?.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organizationId: server.demo?.organization_id, filter: { query: 'amazon' } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { vendors: { name: string; certifications: string[] }[] };
    expect(body.vendors.map((vendor) => vendor.name)).toEqual(['Amazon Web Services']);
    expect(body.vendors[0]?.certifications).toContain('ISO 27001');
  });

  it('refuses a DNS-rebinding request (foreign Host and Origin) over the socket', async () => {
    const { request } = await import('node:http');
    const port = new URL(server.url).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/mcp/v1',
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            origin: 'http://evil.example.com',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${server.demo?.token}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(403);
  });
});

describe('Node host start messages', () => {
  it('on an empty database without the demo, says how to make the first account; once there is one, how to get a token', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cmcp-node-empty-'));
    const url = `file:${join(empty, 'empty.db')}`;
    try {
      const printed: string[] = [];
      const first = await startNodeServer(
        loadConfig({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false' }),
        (line) => printed.push(line),
      );
      // With an account in it, a later start (demo off) points to the token instead.
      const { createUser } = await import('../../src/accounts.ts');
      await createUser(first.runtime.database.db, new Date(), {
        emailVerified: true,
        email: 'first@example.com',
        password: 'a long enough password',
        name: null,
      });
      await first.close();
      expect(first.demo).toBeNull();
      const text = printed.join('\n');
      expect(text).toContain(`sign up at ${first.url}/signup`);
      expect(text).toContain('npx compliance-mcp user create --email');
      expect(text).toContain('npx compliance-mcp org create');
      expect(text).not.toContain('Get a token: sign in');
      const again: string[] = [];
      const second = await startNodeServer(
        loadConfig({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false' }),
        (line) => again.push(line),
      );
      await second.close();
      expect(again.join('\n')).toContain('Get a token: sign in');
      expect(again.join('\n')).not.toContain('/signup');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
