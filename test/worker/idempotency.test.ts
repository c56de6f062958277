// Idempotent writes on the Worker: the key row in the write's batch over Hrana HTTP, so parallel retries with one key
// write once; direct calls and both MCP eras; the same key with other arguments is a conflict; a replay reaches only
// what the calling token reaches.

import { exports } from 'cloudflare:workers';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_META_KEY } from '../../src/surfaces/idempotency.ts';
import { BASE } from '../contract/host.ts';
import { testDatabase, world } from './helpers.ts';

const run = crypto.randomUUID();
const database = testDatabase();

const workerFetch = (input: RequestInfo | URL, init?: RequestInit) =>
  exports.default.fetch(new Request(input, init));

async function keyedAdd(name: string, key: string, token = world.tokens.alice) {
  const response = await workerFetch(`${BASE}/api/mcp/tools/addRisk`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(riskArgs(name)),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function riskArgs(name: string) {
  return {
    organization_id: world.orgTools,
    name,
    category: 'Operational',
    inherent_likelihood: 2,
    inherent_impact: 3,
  };
}

async function risksNamed(name: string): Promise<number> {
  const [row] = await database.db.all<{ n: number }>(
    sql`select count(*) as n from risks where name = ${name}`,
  );
  return row?.n ?? 0;
}

describe('idempotent writes on the Worker', () => {
  it('writes once for 10 parallel direct calls with one key, all answering the same', async () => {
    const name = `Worker parallel ${run}`;
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyedAdd(name, `par-${run}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await risksNamed(name)).toBe(1);
  });

  it('refuses the same key with other arguments as a conflict', async () => {
    await keyedAdd(`Worker first ${run}`, `reuse-${run}`);
    const other = await keyedAdd(`Worker second ${run}`, `reuse-${run}`);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'conflict' });
    expect(await risksNamed(`Worker second ${run}`)).toBe(0);
  });

  it("answers not_found to Alice's token restricted to another organization replaying her key, never the record", async () => {
    const name = `Worker restricted ${run}`;
    const first = await keyedAdd(name, `restricted-${run}`);
    expect(first.status).toBe(200);
    const replay = await keyedAdd(name, `restricted-${run}`, world.tokens.aliceRestricted);
    expect(replay).toEqual({
      status: 404,
      body: {
        error: { code: 'not_found', message: 'Organization not found, or not reachable with this token.' },
      },
    });
    expect(await risksNamed(name)).toBe(1);
  });

  it('takes the key in _meta on MCP 2025 and 2026-07-28', async () => {
    const legacy = new Client({ name: 'worker-idempotency', version: '1.0.0' });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp/v1?toolsets=all`), {
        requestInit: { headers: { authorization: `Bearer ${world.tokens.alice}` } },
        fetch: workerFetch,
      }),
    );
    const modern = new ModernClient(
      { name: 'worker-idempotency', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new ModernTransport(new URL(`${BASE}/api/mcp/v1?toolsets=all`), {
        requestInit: { headers: { authorization: `Bearer ${world.tokens.alice}` } },
        fetch: workerFetch,
      }),
    );
    for (const [era, client] of [
      ['2025', legacy],
      ['2026', modern],
    ] as const) {
      const name = `Worker MCP ${era} ${run}`;
      const call = () =>
        client.callTool({
          name: 'addRisk',
          arguments: riskArgs(name),
          _meta: { [IDEMPOTENCY_META_KEY]: `mcp-${era}-${run}` },
        });
      const first = await call();
      const again = await call();
      expect(first.isError).toBeFalsy();
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(await risksNamed(name)).toBe(1);
    }
    await legacy.close();
    await modern.close();
  });
});
