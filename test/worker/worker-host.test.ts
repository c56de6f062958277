// The Worker entry itself: one runtime per isolate, configuration errors, the call log written after the response.

import { createScheduledController } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { apiTokens, toolCalls } from '../../src/db/schema.ts';
import { searchIndexSegments } from '../../src/db/search-maintenance.ts';
import { type Env, runtimeFor } from '../../src/worker.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, fetchWith, newAliceToken, runScheduled, testDatabase, world } from './helpers.ts';

function listVendors(token: string): Request {
  return new Request(`${BASE}/api/mcp/tools/listVendors`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ organization_id: world.orgTools, size: 1 }),
  });
}

describe('Worker entry', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    // Later tests use the runtime of the real bindings again.
    runtimeFor(env);
  });

  it('builds the runtime once per isolate and reuses it for equal settings', () => {
    const first = runtimeFor(env);
    expect(runtimeFor(env)).toBe(first);
    expect(runtimeFor({ ...env })).toBe(first);
    expect(first.config.tokenCacheTtlSeconds).toBe(60);
    const other = runtimeFor({ ...env, RATE_LIMIT_PER_MINUTE: '5' });
    expect(other).not.toBe(first);
    expect(other.config.rateLimitPerMinute).toBe(5);
  });

  it('answers 500 without internals when LIBSQL_URL is not set, and logs which setting is missing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await fetchWith(new Request(`${BASE}/healthz`), { ...env, LIBSQL_URL: '' });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('internal');
    expect(body.error.message).not.toMatch(/libsql|http/i);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('LIBSQL_URL is not set'));
  });

  it('sends LIBSQL_AUTH_TOKEN: with a wrong one the database refuses and the answer is a bare 500', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    database.client.close();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = await fetchWith(listVendors(created.token), {
      ...env,
      LIBSQL_AUTH_TOKEN: 'wrong-token',
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain('"internal"');
    expect(text).not.toMatch(/wrong-token|127\.0\.0\.1|401|SQL/i);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('internal error'));
  });

  it('answers 413 payload_too_large to a body over MAX_BODY_BYTES, announced or streamed', async () => {
    const announced = await fetchWith(
      new Request(`${BASE}/api/mcp/tools/listVendors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '104857600' },
        body: '{}',
      }),
      env,
    );
    expect(announced.status).toBe(413);
    expect(((await announced.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    database.client.close();
    const limit = Number(env.MAX_BODY_BYTES ?? 1024 * 1024);
    const big = JSON.stringify({ organization_id: world.orgTools, name: 'x'.repeat(limit) });
    const streamed = await fetchWith(
      new Request(`${BASE}/api/mcp/tools/addVendor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
        body: new Blob([big]).stream(),
      }),
      env,
    );
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('records every tool call and the token’s last use after the response (waitUntil)', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    const response = await exports.default.fetch(listVendors(created.token));
    expect(response.status).toBe(200);
    let rows: (typeof toolCalls.$inferSelect)[] = [];
    for (let attempt = 0; attempt < 50 && rows.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await database.db.select().from(toolCalls).where(eq(toolCalls.token_id, created.id));
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tool: 'listVendors',
      surface: 'direct',
      organization_id: world.orgTools,
      outcome: 'ok',
      user_id: world.aliceUserId,
    });
    const [token] = await database.db.select().from(apiTokens).where(eq(apiTokens.id, created.id));
    expect(token?.last_used_at).toBe(rows[0]?.created_at);
    database.client.close();
  });

  it('serves MCP 2026-07-28 (server/discover, tools/call with the envelope) beside a 2025-03-26 initialize', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'worker-test', version: '1' },
    };
    const post = (headers: Record<string, string>, message: unknown) =>
      exports.default.fetch(
        new Request(`${BASE}/api/mcp/v1`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${created.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(message),
        }),
      );
    const modern = { 'mcp-protocol-version': '2026-07-28' };
    const discover = await post(
      { ...modern, 'mcp-method': 'server/discover' },
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } },
    );
    expect(discover.status).toBe(200);
    const discovered = (await discover.json()) as {
      result: { supportedVersions: string[]; capabilities: unknown; cacheScope: string };
    };
    expect(discovered.result.supportedVersions).toEqual(['2026-07-28']);
    expect(discovered.result.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/ui': {} },
    });
    expect(discovered.result.cacheScope).toBe('private');

    const call = await post(
      { ...modern, 'mcp-method': 'tools/call', 'mcp-name': 'listVendors' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'listVendors',
          arguments: { organization_id: world.orgTools, size: 1 },
          _meta: envelope,
        },
      },
    );
    expect(call.status).toBe(200);
    const called = (await call.json()) as {
      result: { isError?: boolean; structuredContent: { vendors: unknown[]; total_count: number } };
    };
    expect(called.result.isError).toBeUndefined();
    // The same answer as the direct surface gives for the same call.
    const direct = await exports.default.fetch(listVendors(created.token));
    expect(called.result.structuredContent).toEqual(await direct.json());
    expect(Array.isArray(called.result.structuredContent.vendors)).toBe(true);

    const init = await post(
      {},
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    );
    const initialized = (await init.json()) as { result: { protocolVersion: string } };
    expect(initialized.result.protocolVersion).toBe('2025-03-26');
    database.client.close();
  });

  it('runs the hourly upkeep from its Cron Trigger: statistics refreshed, search indexes merged into one b-tree', async () => {
    // On a database of its own: the other workerd files write to the search indexes while this one counts b-trees.
    const bindings: Env = { ...env, LIBSQL_URL: inject('upkeepLibsqlUrl') };
    const { orgTools, aliceUserId } = inject('upkeepWorld');
    const database = testDatabase(bindings.LIBSQL_URL);
    const created = await newAliceToken(cliTokenService(database), aliceUserId);
    // Each call its own write: each adds a b-tree to the vendors' search index.
    const names: string[] = [];
    for (let i = 0; i < 6; i++) {
      const name = `Upkeep vendor ${i} ${crypto.randomUUID()}`;
      names.push(name);
      const added = await fetchWith(
        new Request(`${BASE}/api/mcp/tools/addVendor`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ organization_id: orgTools, name }),
        }),
        bindings,
      );
      expect(added.status).toBe(200);
    }
    expect(await searchIndexSegments(database.client, 'vendors_fts')).toBeGreaterThan(1);
    await database.client.execute('delete from sqlite_stat1');
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    // Merging every register's index may take more than one run's budget of requests, each run carrying the merge
    // on, until one says it is done.
    const lines: string[] = [];
    for (let run = 0; run < 20; run++) {
      logged.mockClear();
      await runScheduled(bindings);
      const line = String(logged.mock.calls.at(-1)?.[0]);
      lines.push(line);
      expect(line).toMatch(/^upkeep: statistics refreshed; search indexes merged: /);
      if (!line.endsWith('the merge carries on at the next run')) break;
    }
    expect(lines.at(-1)).not.toContain('carries on');
    expect(lines.join('\n')).toContain('vendors_fts');
    expect(await searchIndexSegments(database.client, 'vendors_fts')).toBe(1);
    const stats = await database.client.execute(
      "select count(*) as n from sqlite_stat1 where tbl = 'vendors'",
    );
    expect(Number(stats.rows[0]?.n)).toBeGreaterThan(0);
    // The index finds the same records after the merge.
    const found = await fetchWith(
      new Request(`${BASE}/api/mcp/tools/listVendors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organization_id: orgTools, filter: { query: names[3]?.slice(-36) } }),
      }),
      bindings,
    );
    const page = (await found.json()) as { vendors: { name: string }[] };
    expect(page.vendors.map((vendor) => vendor.name)).toEqual([names[3]]);
    database.client.close();
  });

  it('fails a misconfigured upkeep run, logged and not retried', async () => {
    const failed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const controller = createScheduledController({ cron: '17 * * * *' });
    const noRetry = vi.spyOn(controller, 'noRetry');
    await expect(runScheduled({ ...env, LIBSQL_URL: '' }, controller)).rejects.toThrow(
      'LIBSQL_URL is not set',
    );
    expect(failed).toHaveBeenCalledWith(expect.stringContaining('LIBSQL_URL is not set'));
    expect(noRetry).toHaveBeenCalledTimes(1);
  });
});
