// A generated corpus of 2025-era MCP requests for differential tests: plain tools/calls, calls with `_meta` or a
// `task`, batches, malformed bodies, failing calls (tool errors, unknown tools, other connections' tools, rate limits)
// and other methods, each with varied headers, query strings and tokens; hostile text from the fuzz engine's pieces.
import { FRAGMENTS } from '../scripts/fuzz-engine.ts';

export interface CorpusRequest {
  name: string;
  /** The request body as sent (not always JSON). */
  body: string;
  headers: Record<string, string>;
  /** Query string of /api/mcp/v1, with its `?` (or empty). */
  query: string;
  /** Which token asks: read_write or read. */
  token: 'write' | 'read';
  /** The token has used up its calls of the minute: every tool call is rate_limited. */
  rateLimited: boolean;
}

/** Ids the corpus refers to: an organization of the caller, another one, and a risk of the caller. */
export interface CorpusWorld {
  organizationId: string;
  foreignOrganizationId: string;
  riskId: string;
}

/** A small seeded generator (an LCG is enough to pick among variants, and repeats a corpus exactly). */
function picker(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}
type Picker = ReturnType<typeof picker>;

type Message = Record<string, unknown>;

const call = (id: unknown, name: unknown, args?: unknown): Message => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

/** Arguments of tools/calls that succeed, fail as tool results (isError) or as JSON-RPC errors. */
function toolCalls(world: CorpusWorld, random: Picker): [string, unknown][] {
  const text = () => `${random.pick(FRAGMENTS)}${random.pick(FRAGMENTS)}`;
  return [
    ['listOrganizations', {}],
    ['listOrganizations', undefined],
    ['listRisks', { organization_id: world.organizationId }],
    ['listRisks', { organizationId: world.organizationId, size: 1 }],
    ['listRisks', { organization_id: world.organizationId, filter: { query: text() } }],
    ['listRisks', { organization_id: world.organizationId, filter: { status: 'BOGUS' } }],
    ['listRisks', { organization_id: world.organizationId, size: 0 }],
    ['listRisks', { organization_id: world.foreignOrganizationId }],
    ['listRisks', { organization_id: world.organizationId, unknown_argument: text() }],
    ['getRisk', { id: world.riskId }],
    ['getRisk', { id: `rsk_${'z'.repeat(24)}` }],
    ['getRisk', { id: 'ven_0000' }],
    ['getComplianceSummary', { organization_id: world.organizationId }],
    ['listVendors', { organization_id: world.organizationId, filter: { query: text() } }],
    ['listChanges', { organization_id: world.organizationId }],
    ['updateRisk', { id: world.riskId, note: text() }],
    ['deleteRisk', { id: `rsk_${'z'.repeat(24)}` }],
    ['addVendor', { organization_id: world.organizationId }],
    ['noSuchTool', {}],
    ['', {}],
  ];
}

const IDS: unknown[] = [1, 0, -5, 2 ** 53 - 1, 'req-7', '', 'ünï "quoted"'];

/** One JSON-RPC message or batch of the corpus, by kind. */
function message(kind: string, world: CorpusWorld, random: Picker): unknown {
  const id = random.pick(IDS);
  const [name, args] = random.pick(toolCalls(world, random));
  switch (kind) {
    case 'plain':
      return call(id, name, args);
    case 'meta': {
      const meta = random.pick([{ progressToken: 1 }, { progressToken: 'p-1' }, { custom: { a: 1 } }, {}]);
      return { ...call(id, name, args), params: { name, arguments: args ?? {}, _meta: meta } };
    }
    case 'task':
      return { ...call(id, name, args), params: { name, arguments: args ?? {}, task: { ttl: 60_000 } } };
    case 'batch': {
      const count = random.pick([0, 1, 2, 3]);
      return Array.from({ length: count }, (_, index) =>
        random.chance(0.25)
          ? { jsonrpc: '2.0', method: 'notifications/initialized' }
          : call(index + 1, random.pick(toolCalls(world, random))[0], {}),
      );
    }
    case 'malformed':
      return random.pick<unknown>([
        { ...call(id, name, args), jsonrpc: '1.0' },
        { ...call(id, name, args), id: null },
        { ...call(id, name, args), id: 1.5 },
        { ...call(id, name, args), id: { nested: 1 } },
        { ...call(id, name, args), method: 5 },
        { ...call(id, name, args), params: [1] },
        { ...call(id, name, args), extra: 1 },
        call(id, name, random.pick([42, null, 'text', [1], true])),
        call(id, random.pick([5, null, { a: 1 }])),
        { jsonrpc: '2.0', id, method: 'tools/call' },
        { jsonrpc: '2.0', id, method: 'tools/call', params: { arguments: {} } },
        { foo: 1 },
        null,
        42,
        'text',
      ]);
    case 'method':
      return random.pick<Message>([
        {
          jsonrpc: '2.0',
          id,
          method: 'initialize',
          params: {
            protocolVersion: random.pick([
              '2025-11-25',
              '2025-06-18',
              '2025-03-26',
              '2024-11-05',
              '1999-01-01',
            ]),
            capabilities: {},
            clientInfo: { name: 'corpus', version: '1.0.0' },
          },
        },
        { jsonrpc: '2.0', id, method: 'initialize', params: {} },
        { jsonrpc: '2.0', id, method: 'ping' },
        { jsonrpc: '2.0', id, method: 'tools/list' },
        { jsonrpc: '2.0', id, method: 'tools/list', params: { cursor: 'abc' } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
        { jsonrpc: '2.0', id, method: 'resources/list' },
        { jsonrpc: '2.0', id, method: 'prompts/list' },
        { jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: 'info' } },
        { jsonrpc: '2.0', id, method: 'completion/complete', params: {} },
        { jsonrpc: '2.0', id, method: 'unknown/method' },
        { jsonrpc: '2.0', id, method: 'server/discover' },
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } },
      ]);
    default:
      throw new Error(`no message kind ${kind}`);
  }
}

/** Header variants, the common case first and most often. */
function headers(random: Picker): Record<string, string> {
  const chosen: Record<string, string> = {
    'content-type': random.chance(0.85)
      ? 'application/json'
      : random.pick(['application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded']),
    accept: random.chance(0.75)
      ? 'application/json, text/event-stream'
      : random.pick(['application/json', 'text/event-stream', '*/*']),
  };
  if (random.chance(0.3)) {
    chosen['mcp-protocol-version'] = random.pick([
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
      '1999-01-01',
    ]);
  }
  if (random.chance(0.05)) chosen['mcp-session-id'] = 'a-session-this-server-never-gave';
  // 2026-07-28's standard headers on a request without its envelope.
  if (random.chance(0.03)) chosen['mcp-method'] = 'tools/call';
  if (random.chance(0.03)) chosen['mcp-name'] = 'listRisks';
  return chosen;
}

const QUERIES = ['?toolsets=all', '', '?toolsets=risks', '?readonly=true', '?toolsets=vendors,history'];

const KINDS = ['plain', 'plain', 'plain', 'meta', 'task', 'batch', 'malformed', 'method'];

/** `count` requests from `seed`: about 40% plain tools/calls, the rest spread over the other kinds. */
export function generateCorpus(world: CorpusWorld, seed: number, count: number): CorpusRequest[] {
  const random = picker(seed);
  const corpus: CorpusRequest[] = [];
  for (let index = 0; index < count; index++) {
    const kind = random.pick(KINDS);
    const value = message(kind, world, random);
    // Some bodies are not JSON at all, or empty.
    const body = random.chance(0.03)
      ? random.pick(['', '{', '{"jsonrpc":"2.0",', 'not json'])
      : JSON.stringify(value);
    corpus.push({
      name: `#${index} ${kind}`,
      body,
      headers: headers(random),
      query: random.pick(QUERIES),
      token: random.chance(0.85) ? 'write' : 'read',
      rateLimited: random.chance(0.05),
    });
  }
  return corpus;
}
