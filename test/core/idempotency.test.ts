// Idempotent writes: a retried write with the same key answers as the first without writing again, on the direct
// surface and on MCP (2025 and 2026-07-28, `_meta` key or header), per user, for 24 hours.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMembership } from '../../src/accounts.ts';
import { IDEMPOTENCY_META_KEY, purgeExpiredIdempotencyKeys } from '../../src/surfaces/idempotency.ts';
import {
  addMember,
  BASE,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  createWorld,
  mcpClient,
  mcpPost,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
// The clock the runtime reads: pinned, moved by the expiry tests.
let clock = new Date('2026-11-20T09:00:00.000Z');

beforeAll(async () => {
  runtime = await createTestRuntime({ now: () => clock });
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

/** A direct call with an Idempotency-Key header (or none). */
async function keyedDirect(token: string, tool: string, args: unknown, key?: string) {
  const response = await runtime.app.request(`${BASE}/api/mcp/tools/${tool}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** How many risks of org A carry this name. */
async function risksNamed(name: string): Promise<number> {
  const [row] = await runtime.database.db.all<{ n: number }>(
    sql`select count(*) as n from risks where name = ${name}`,
  );
  return row?.n ?? 0;
}

async function keyRows(key: string) {
  return runtime.database.db.all<{ user_id: string; tool: string; answer: string | null; call_id: string }>(
    sql`select user_id, tool, answer, call_id from idempotency_keys where key = ${key}`,
  );
}

const addArgs = (name: string) => ({
  organization_id: world.orgA,
  name,
  category: 'Operational',
  inherent_likelihood: 3,
  inherent_impact: 4,
});

describe('Idempotency-Key on direct calls', () => {
  it('answers a retried add with the first answer and writes one record, one history row and one key row', async () => {
    const first = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Retried risk'), 'key-retry-1');
    const again = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Retried risk'), 'key-retry-1');
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    expect(await risksNamed('Retried risk')).toBe(1);
    const id = (first.body.risk as { id: string }).id;
    const [history] = await runtime.database.db.all<{ n: number }>(
      sql`select count(*) as n from record_changes where record_id = ${id}`,
    );
    expect(history?.n).toBe(1);
    const rows = await keyRows('key-retry-1');
    expect(rows).toEqual([
      expect.objectContaining({
        user_id: world.alice.userId,
        tool: 'addRisk',
        answer: JSON.stringify(first.body),
      }),
    ]);
  });

  it('takes camelCase and reordered arguments as the same call', async () => {
    const first = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Spelled twice'), 'key-spelling');
    const { organization_id, inherent_likelihood, inherent_impact, ...rest } = addArgs('Spelled twice');
    const again = await keyedDirect(
      world.aliceToken,
      'addRisk',
      {
        inherentImpact: inherent_impact,
        ...rest,
        inherentLikelihood: inherent_likelihood,
        organizationId: organization_id,
      },
      'key-spelling',
    );
    expect(again).toEqual(first);
    expect(await risksNamed('Spelled twice')).toBe(1);
  });

  it('writes once for 10 parallel identical calls with one key, and all ten answer the same and are logged', async () => {
    const logged = async () => {
      await runtime.usage.flush();
      const [row] = await runtime.database.db.all<{ n: number }>(
        sql`select count(*) as n from tool_calls where tool = 'addRisk' and outcome = 'ok'`,
      );
      return row?.n ?? 0;
    };
    const before = await logged();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        keyedDirect(world.aliceToken, 'addRisk', addArgs('Parallel risk'), 'key-parallel'),
      ),
    );
    expect(await risksNamed('Parallel risk')).toBe(1);
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await keyRows('key-parallel')).toHaveLength(1);
    expect(await logged()).toBe(before + 10);
  });

  it('writes once for 10 parallel identical updates with one key', async () => {
    const added = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Update target'));
    const id = (added.body.risk as { id: string }).id;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        keyedDirect(world.aliceToken, 'updateRisk', { id, status: 'IN_TREATMENT' }, 'key-parallel-update'),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]?.body.risk).toMatchObject({ status: 'IN_TREATMENT' });
    const [history] = await runtime.database.db.all<{ n: number }>(
      sql`select count(*) as n from record_changes where record_id = ${id} and action = 'update'`,
    );
    expect(history?.n).toBe(1);
  });

  it('refuses the same key with other arguments as a conflict saying so, and writes nothing', async () => {
    await keyedDirect(world.aliceToken, 'addRisk', addArgs('First use'), 'key-reused');
    const other = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Second use'), 'key-reused');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'conflict' });
    expect((other.body.error as { message: string }).message).toContain('other arguments (addRisk)');
    const otherTool = await keyedDirect(
      world.aliceToken,
      'addVendor',
      { organization_id: world.orgA, name: 'V' },
      'key-reused',
    );
    expect(otherTool.status).toBe(409);
    expect(await risksNamed('Second use')).toBe(0);
  });

  it("keeps each user's keys their own: another user's same key writes and answers for that user", async () => {
    const alice = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Alice key'), 'key-shared');
    const bob = await keyedDirect(
      world.bobToken,
      'addRisk',
      { ...addArgs('Alice key'), organization_id: world.orgB },
      'key-shared',
    );
    expect(bob.status).toBe(200);
    expect((bob.body.risk as { organization_id: string }).organization_id).toBe(world.orgB);
    expect(bob.body).not.toEqual(alice.body);
    expect(await risksNamed('Alice key')).toBe(2);
  });

  it('answers a delete retried after the record is gone as the first delete did', async () => {
    const added = await keyedDirect(world.aliceToken, 'addRisk', addArgs('To delete'));
    const id = (added.body.risk as { id: string }).id;
    const first = await keyedDirect(world.aliceToken, 'deleteRisk', { id }, 'key-delete');
    const again = await keyedDirect(world.aliceToken, 'deleteRisk', { id }, 'key-delete');
    expect(first).toEqual({ status: 200, body: { id, deleted: true } });
    expect(again).toEqual(first);
    const unkeyed = await keyedDirect(world.aliceToken, 'deleteRisk', { id });
    expect(unkeyed.status).toBe(404);
  });

  it('ignores the key on reads, even a malformed one', async () => {
    const list = await keyedDirect(
      world.aliceToken,
      'listRisks',
      { organization_id: world.orgA },
      'key-read',
    );
    expect(list.status).toBe(200);
    expect(await keyRows('key-read')).toEqual([]);
    const malformed = await keyedDirect(
      world.aliceToken,
      'listRisks',
      { organization_id: world.orgA },
      'a b',
    );
    expect(malformed.status).toBe(200);
  });

  it('refuses a malformed key on a write as invalid_arguments', async () => {
    const response = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Bad key'), 'x'.repeat(256));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'invalid_arguments',
      details: [{ path: 'Idempotency-Key' }],
    });
    expect(await risksNamed('Bad key')).toBe(0);
  });

  it('does not keep a failed call: a retry after fixing nothing fails the same, and a key is not spent by it', async () => {
    const refused = await keyedDirect(
      world.aliceToken,
      'addRisk',
      { ...addArgs('Refused'), inherent_impact: 9 },
      'key-fail',
    );
    expect(refused.status).toBe(400);
    expect(await keyRows('key-fail')).toEqual([]);
    const fixed = await keyedDirect(
      world.aliceToken,
      'addRisk',
      { ...addArgs('Refused'), inherent_impact: 9 },
      'key-fail',
    );
    expect(fixed.status).toBe(400);
  });

  it('reads the answer again when the first call committed but its answer was never stored', async () => {
    const first = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Answer lost'), 'key-lost');
    await runtime.database.db.run(sql`update idempotency_keys set answer = null where key = 'key-lost'`);
    const again = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Answer lost'), 'key-lost');
    expect(again).toEqual(first);
    expect(await risksNamed('Answer lost')).toBe(1);
    expect((await keyRows('key-lost'))[0]?.answer).toBe(JSON.stringify(first.body));
  });
});

describe('a replay reaches only what the caller reaches now', () => {
  it("answers not_found to another token of the same user restricted to another organization, never org A's record", async () => {
    const orgY = await createOrg(runtime, world.alice, 'Alice second org');
    const restricted = await createToken(runtime, world.alice, { organizationIds: [orgY] });
    const first = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Kept in A'), 'key-restricted');
    expect(first.status).toBe(200);
    const id = (first.body.risk as { id: string }).id;
    const replay = await keyedDirect(restricted, 'addRisk', addArgs('Kept in A'), 'key-restricted');
    expect(replay).toEqual({
      status: 404,
      body: {
        error: {
          code: 'not_found',
          message: 'Organization not found, or not reachable with this token.',
        },
      },
    });
    // The same call without a key answers alike: the key adds nothing to what the token reaches.
    const unkeyed = await keyedDirect(restricted, 'addRisk', addArgs('Kept in A'));
    expect(unkeyed).toEqual(replay);
    // The key with its own organization's arguments: a conflict that does not name the tool used in org A.
    const other = await keyedDirect(
      restricted,
      'addRisk',
      { ...addArgs('Kept in A'), organization_id: orgY },
      'key-restricted',
    );
    expect(other.status).toBe(409);
    expect(JSON.stringify(other.body)).not.toContain('addRisk');
    expect(JSON.stringify([replay, other])).not.toContain(id);
    expect(await risksNamed('Kept in A')).toBe(1);
    // The token that wrote still replays it.
    expect(await keyedDirect(world.aliceToken, 'addRisk', addArgs('Kept in A'), 'key-restricted')).toEqual(
      first,
    );
  });

  it('answers not_found to the writer once their membership is removed, for an add and for an update', async () => {
    const carol = await createActor(runtime, 'carol');
    await addMember(runtime, world.orgA, carol, 'EDITOR');
    const token = await createToken(runtime, carol);
    const added = await keyedDirect(token, 'addRisk', addArgs('Carol risk'), 'key-carol-add');
    const id = (added.body.risk as { id: string }).id;
    const updated = await keyedDirect(token, 'updateRisk', { id, status: 'ACCEPTED' }, 'key-carol-update');
    expect([added.status, updated.status]).toEqual([200, 200]);
    await removeMembership(runtime.database.db, new Date(), world.orgA, carol.userId);
    await runtime.tokens.invalidateUser(carol.userId);
    const addAgain = await keyedDirect(token, 'addRisk', addArgs('Carol risk'), 'key-carol-add');
    const updateAgain = await keyedDirect(
      token,
      'updateRisk',
      { id, status: 'ACCEPTED' },
      'key-carol-update',
    );
    for (const replay of [addAgain, updateAgain]) {
      expect(replay.status).toBe(404);
      expect(replay.body.error).toMatchObject({ code: 'not_found' });
      expect(JSON.stringify(replay.body)).not.toContain(id);
    }
    expect(await risksNamed('Carol risk')).toBe(1);
  });
});

describe('24 hours', () => {
  it('replays a key until 24 hours after its write, then writes again; the upkeep purges expired keys', async () => {
    const start = clock;
    try {
      const first = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Daily risk'), 'key-daily');
      clock = new Date(start.getTime() + 24 * 3_600_000 - 1);
      expect(await keyedDirect(world.aliceToken, 'addRisk', addArgs('Daily risk'), 'key-daily')).toEqual(
        first,
      );
      expect(await risksNamed('Daily risk')).toBe(1);
      clock = new Date(start.getTime() + 24 * 3_600_000);
      const later = await keyedDirect(world.aliceToken, 'addRisk', addArgs('Daily risk'), 'key-daily');
      expect(later.status).toBe(200);
      expect(later.body).not.toEqual(first.body);
      expect(await risksNamed('Daily risk')).toBe(2);

      await keyedDirect(world.aliceToken, 'addRisk', addArgs('Purged risk'), 'key-purged');
      clock = new Date(clock.getTime() + 24 * 3_600_000);
      const [live] = await runtime.database.db.all<{ n: number }>(
        sql`select count(*) as n from idempotency_keys`,
      );
      const purged = await purgeExpiredIdempotencyKeys(runtime.database.db, clock);
      expect(purged).toBe(live?.n);
      expect(await runtime.database.db.all(sql`select key from idempotency_keys`)).toEqual([]);
    } finally {
      clock = start;
    }
  });
});

describe('idempotency keys on MCP', () => {
  it('2025 era: params._meta key makes a retried tools/call answer the same with one record', async () => {
    const client = await mcpClient(runtime, world.aliceToken);
    const call = () =>
      client.callTool({
        name: 'addRisk',
        arguments: addArgs('MCP 2025 risk'),
        _meta: { [IDEMPOTENCY_META_KEY]: 'key-mcp-2025' },
      });
    const first = await call();
    const again = await call();
    await client.close();
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await risksNamed('MCP 2025 risk')).toBe(1);
  });

  it('2025 era: the Idempotency-Key header on the MCP endpoint (the fast path too), and a mismatch with _meta', async () => {
    const body = (id: number, meta?: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'addRisk',
        arguments: addArgs('MCP header risk'),
        ...(meta ? { _meta: { [IDEMPOTENCY_META_KEY]: meta } } : {}),
      },
    });
    const headers = { authorization: `Bearer ${world.aliceToken}`, 'idempotency-key': 'key-mcp-header' };
    const first = (await (await mcpPost(runtime, headers, body(1))).json()) as {
      result: { structuredContent: unknown };
    };
    const again = (await (await mcpPost(runtime, headers, body(2))).json()) as {
      result: { structuredContent: unknown };
    };
    expect(again.result.structuredContent).toEqual(first.result.structuredContent);
    expect(await risksNamed('MCP header risk')).toBe(1);
    const mismatch = (await (await mcpPost(runtime, headers, body(3, 'key-other'))).json()) as {
      result: { isError: boolean; structuredContent: { error: { code: string } } };
    };
    expect(mismatch.result.isError).toBe(true);
    expect(mismatch.result.structuredContent.error.code).toBe('invalid_arguments');
    expect(await risksNamed('MCP header risk')).toBe(1);
  });

  it('2026-07-28: params._meta key makes a retried tools/call answer the same with one record', async () => {
    const client = new ModernClient(
      { name: 'idempotency-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(new URL(`${BASE}/api/mcp/v1?toolsets=all`), {
        requestInit: { headers: { authorization: `Bearer ${world.aliceToken}` } },
        fetch: async (input, init) => runtime.app.fetch(new Request(input, init)),
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const call = () =>
      client.callTool({
        name: 'addRisk',
        arguments: addArgs('MCP 2026 risk'),
        _meta: { [IDEMPOTENCY_META_KEY]: 'key-mcp-2026' },
      });
    const first = await call();
    const again = await call();
    await client.close();
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await risksNamed('MCP 2026 risk')).toBe(1);
    // The same key on the direct surface is the same key of the same user: the same answer.
    const direct = await keyedDirect(world.aliceToken, 'addRisk', addArgs('MCP 2026 risk'), 'key-mcp-2026');
    expect(direct.body).toEqual(first.structuredContent);
  });
});

describe('without a key', () => {
  it('writes every call and stores no key row', async () => {
    await callDirect(runtime, world.aliceToken, 'addRisk', addArgs('Unkeyed'));
    await callDirect(runtime, world.aliceToken, 'addRisk', addArgs('Unkeyed'));
    expect(await risksNamed('Unkeyed')).toBe(2);
    const [row] = await runtime.database.db.all<{ n: number }>(
      sql`select count(*) as n from idempotency_keys where tool = 'addRisk' and answer like '%Unkeyed%'`,
    );
    expect(row?.n).toBe(0);
  });
});

describe('OpenAPI', () => {
  it('offers the Idempotency-Key header on write operations only', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json`);
    const document = (await response.json()) as {
      paths: Record<string, { post: { parameters?: unknown[] } }>;
      components: { parameters: Record<string, { name: string; in: string; required: boolean }> };
    };
    const reference = [{ $ref: '#/components/parameters/IdempotencyKey' }];
    expect(document.paths['/api/mcp/tools/addRisk']?.post.parameters).toEqual(reference);
    expect(document.paths['/api/mcp/tools/deleteRisk']?.post.parameters).toEqual(reference);
    expect(document.paths['/api/mcp/tools/getRisk']?.post.parameters).toBeUndefined();
    expect(document.components.parameters.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
  });
});
