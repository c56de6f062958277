// Differential tests of the MCP endpoint on a generated corpus of 2025-era requests (test/mcp-corpus.ts), each sent
// two ways, their status, headers and parsed JSON bodies compared (docs/mcp.md):
// - the fast path (a plain tools/call answered by the endpoint itself) against the SDK path (MCP_FAST_PATH off):
//   the same answers, every one;
// - @modelcontextprotocol/server 2.x, which serves 2025-era traffic, against SDK 1.x, which served it before and
//   which most 2025 peers run, over the same tool handlers: the same answers but for the differences docs/mcp.md
//   lists (differenceOf).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as Sdk1Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport as Sdk1Transport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ListToolsResult as Sdk1ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator as Sdk1Validator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import type { RateLimiter } from '../../src/rate-limit.ts';
import { createMcpSurface, type LegacyServing, type McpSurface } from '../../src/surfaces/mcp.ts';
import {
  createMcpToolHandlers,
  MCP_CAPABILITIES,
  type McpServerOptions,
  serverInfoOf,
} from '../../src/surfaces/mcp-server.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';
import { type CorpusRequest, generateCorpus } from '../mcp-corpus.ts';

const CORPUS_SIZE = 600;

let runtime: TestRuntime;
let world: World;
let principals: Record<CorpusRequest['token'], Principal>;
let riskId: string;
/** Set per request: the token has used up its calls of the minute. */
let rateLimited = false;
const rateLimiter: RateLimiter = { take: () => (rateLimited ? 17 : 0) };

/** SDK 1.x serving the 2025-era leg over the same tool handlers, as this endpoint did before. */
function sdk1Serving(options: McpServerOptions): LegacyServing {
  const handlers = createMcpToolHandlers(options);
  return async (request, connection, parsedBody) => {
    const server = new Sdk1Server(serverInfoOf(options), {
      capabilities: MCP_CAPABILITIES,
      instructions: handlers.instructions(connection),
      jsonSchemaValidator: new Sdk1Validator(),
    });
    // The same JSON; the two SDK lines type JSON Schema properties differently.
    server.setRequestHandler(ListToolsRequestSchema, () => handlers.list(connection) as Sdk1ListToolsResult);
    server.setRequestHandler(CallToolRequestSchema, (call) =>
      handlers.call(connection, call.params.name, call.params.arguments),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => handlers.listResources());
    server.setRequestHandler(ReadResourceRequestSchema, (read) => handlers.readResource(read.params.uri));
    const transport = new Sdk1Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  };
}

interface Answer {
  status: number;
  contentType: string | null;
  /** Every header, `name: value`. */
  headers: string[];
  /** The parsed JSON body (times and durations masked: two calls never share them), or the text if not JSON. */
  body: unknown;
}

async function answer(surface: McpSurface, item: CorpusRequest): Promise<Answer> {
  rateLimited = item.rateLimited;
  const request = new Request(`http://127.0.0.1/api/mcp/v1${item.query}`, {
    method: 'POST',
    headers: item.headers,
    body: item.body,
  });
  const response = await surface.handle(request, principals[item.token], 'req');
  const text = (await response.text())
    .replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replaceAll(/(\\*"duration_ms\\*":)\d+/g, '$1<ms>');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    headers: [...response.headers].map(([name, value]) => `${name}: ${value}`).sort(),
    body,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Where SDK 2.x answers a 2025-era request differently from SDK 1.x, as docs/mcp.md records: a tools/call carrying
 * a `task` (1.x refuses it with -32603 "does not support task creation"; 2.x, serving no tasks, runs the call), and a
 * tools/call whose params are invalid (1.x: -32603 with zod's message, or -32602 prefixed "MCP error -32602: "; 2.x:
 * -32602 "Invalid tools/call request: ..."). Null for every other request, which must be answered alike.
 */
function differenceOf(item: CorpusRequest): 'task' | 'invalid-call' | null {
  let message: unknown;
  try {
    message = JSON.parse(item.body);
  } catch {
    return null;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call') return null;
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  if (!isObject(params) || typeof params.name !== 'string') return 'invalid-call';
  if (params.arguments !== undefined && !isObject(params.arguments)) return 'invalid-call';
  return 'task' in params ? 'task' : null;
}

/**
 * The same answer, or the documented difference: the same HTTP status and headers, the bodies as differenceOf says.
 * (A request refused before the call, e.g. 415 or an unsupported protocol version, is answered alike.)
 */
function answersAlike(
  difference: ReturnType<typeof differenceOf>,
  expected: Answer,
  actual: Answer,
): boolean {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return true;
  const sameHttp = JSON.stringify({ ...expected, body: null }) === JSON.stringify({ ...actual, body: null });
  if (difference === 'task') {
    return (
      sameHttp &&
      /does not support task creation/.test(errorOf(expected)?.message ?? '') &&
      !/task/.test(errorOf(actual)?.message ?? '')
    );
  }
  if (difference === 'invalid-call') {
    return (
      sameHttp &&
      [-32602, -32603].includes(errorOf(expected)?.code ?? 0) &&
      errorOf(actual)?.code === -32602 &&
      /^Invalid tools\/call request: /.test(errorOf(actual)?.message ?? '')
    );
  }
  return false;
}

function errorOf(answer: Answer): { code: number; message: string } | undefined {
  return isObject(answer.body)
    ? (answer.body.error as { code: number; message: string } | undefined)
    : undefined;
}

function surfaceOptions(): McpServerOptions {
  return {
    tools: TOOLS,
    invoke: {
      db: runtime.database.db,
      usage: runtime.usage,
      now: () => new Date(),
      rateLimiter,
      logError: () => {},
      files: runtime.files,
    },
    serverName: 'compliance-mcp',
    version: 'test',
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  };
}

function corpus(seed: number): CorpusRequest[] {
  return generateCorpus(
    { organizationId: world.orgA, foreignOrganizationId: world.orgB, riskId },
    seed,
    CORPUS_SIZE,
  );
}

function mismatch(item: CorpusRequest, expected: Answer, actual: Answer, names: [string, string]): string {
  return (
    `${item.name} ${item.query} ${JSON.stringify(item.headers)} ${item.body.slice(0, 200)}\n` +
    `  ${names[0]}: ${JSON.stringify(expected).slice(0, 400)}\n  ${names[1]}: ${JSON.stringify(actual).slice(0, 400)}`
  );
}

/** Counts the SDK 2.x transport's requests: the fast path makes none. */
const transportCalls = () => vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');

afterEach(() => {
  vi.restoreAllMocks();
});

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  const write = await runtime.tokens.authenticate(world.aliceToken);
  const read = await runtime.tokens.authenticate(world.aliceReadToken);
  if (!write.ok || !read.ok) throw new Error('the world tokens do not authenticate');
  principals = { write: write.principal, read: read.principal };
  const added = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
    organization_id: world.orgA,
    name: 'Ransomware on the "file" server',
    description: 'Line one\nline two\ttabbed',
    inherent_likelihood: 3,
    inherent_impact: 4,
  });
  riskId = added.risk.id;
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('the fast path against the SDK path', () => {
  it(`answers ${CORPUS_SIZE} generated requests as the SDK does, a plain tools/call without it`, async () => {
    const fast = createMcpSurface({ ...surfaceOptions(), fastPath: true });
    const sdk = createMcpSurface({ ...surfaceOptions(), fastPath: false });
    const calls = transportCalls();
    const mismatches: string[] = [];
    let answeredByFastPath = 0;
    for (const item of corpus(17)) {
      // A write changes the record: the SDK path gets it first, then the fast path makes the same change.
      const beforeSdk = calls.mock.calls.length;
      const expected = await answer(sdk, item);
      const beforeFast = calls.mock.calls.length;
      const actual = await answer(fast, item);
      if (beforeFast - beforeSdk === 1 && calls.mock.calls.length === beforeFast) answeredByFastPath += 1;
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        mismatches.push(mismatch(item, expected, actual, ['SDK path', 'fast path']));
    }
    expect(mismatches).toEqual([]);
    // Plain calls are about 40% of the corpus; the rest (with _meta, task, batches, malformed, other methods, other
    // content types or protocol versions) went through the SDK on both.
    expect(answeredByFastPath).toBeGreaterThan(150);
    expect(answeredByFastPath).toBeLessThan(CORPUS_SIZE - 150);
  });
});

describe('2025-era traffic, SDK 2.x against SDK 1.x', () => {
  it(`answers ${CORPUS_SIZE} generated requests as SDK 1.x does, but for the documented differences`, async () => {
    const endpoint = createMcpSurface({ ...surfaceOptions(), fastPath: false });
    const reference = createMcpSurface({
      ...surfaceOptions(),
      fastPath: false,
      serveLegacy: sdk1Serving(surfaceOptions()),
    });
    const mismatches: string[] = [];
    const seen = {
      results: 0,
      toolErrors: 0,
      rpcErrors: 0,
      rateLimited: 0,
      accepted: 0,
      refused: 0,
      task: 0,
      'invalid-call': 0,
    };
    for (const item of corpus(20_260_728)) {
      const expected = await answer(reference, item);
      const actual = await answer(endpoint, item);
      const difference = differenceOf(item);
      if (difference && JSON.stringify(expected) !== JSON.stringify(actual)) seen[difference] += 1;
      if (!answersAlike(difference, expected, actual))
        mismatches.push(mismatch(item, expected, actual, ['SDK 1.x', 'SDK 2.x']));
      const text = JSON.stringify(actual.body);
      if (text.includes('"result":')) seen.results += 1;
      if (text.includes('"isError":true')) seen.toolErrors += 1;
      if (text.includes('"error":{"code":-')) seen.rpcErrors += 1;
      if (text.includes('rate_limited')) seen.rateLimited += 1;
      if (actual.status === 202) seen.accepted += 1;
      if (actual.status >= 400) seen.refused += 1;
    }
    expect(mismatches).toEqual([]);
    // The corpus reached every kind of answer: results, failed calls, JSON-RPC errors, rate limits, notifications
    // accepted, HTTP refusals (content type, protocol version, unparsable bodies), and both documented differences.
    expect(Object.entries(seen).filter(([, count]) => count < 5)).toEqual([]);
  });

  it('is read by the SDK 1.x client over the app, results and errors alike', async () => {
    const client = new Client({ name: 'differential-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/api/mcp/v1'), {
        fetch: async (url, init) => runtime.app.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${world.aliceToken}` } },
      }),
    );
    try {
      const listed = await client.callTool({ name: 'listRisks', arguments: { organization_id: world.orgA } });
      const risks = (listed.structuredContent as { risks: { name: string }[] }).risks;
      expect(risks.map((risk) => risk.name)).toContain('Ransomware on the "file" server');
      expect(JSON.parse((listed.content as { text: string }[])[0]?.text ?? '')).toEqual(
        listed.structuredContent,
      );
      const failed = await client.callTool({ name: 'getRisk', arguments: { id: `rsk_${'z'.repeat(24)}` } });
      expect(failed.isError).toBe(true);
      expect((failed.structuredContent as { error: { code: string } }).error.code).toBe('not_found');
      await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(
        /Unknown tool: noSuchTool/,
      );
    } finally {
      await client.close();
    }
  });
});
