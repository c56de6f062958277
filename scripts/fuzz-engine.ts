// Schema-driven fuzzing of every tool on both surfaces (direct calls and MCP JSON-RPC), in process through the
// app's own fetch: arguments are generated from each tool's published input schema, then made hostile (odd
// unicode, wrong types, deep nesting, aliases, unknown keys, other organizations' ids). Counts what must never
// happen: 5xx, `internal`, codes outside the closed set of DESIGN §4, successful results that do not validate
// against the tool's published output schema (with the validators MCP clients use), and another organization's
// ids in an answer.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { Runtime } from '../src/runtime.ts';
import { jsonSchemasOf } from '../src/surfaces/schemas.ts';
import { REGISTER_SPECS, TOOLS } from '../src/tools/index.ts';
import type { Tool } from '../src/tools/types.ts';
import { createScratchRuntime } from './scratch-runtime.ts';

/** DESIGN §4, written out here on purpose: a code the app invents is counted, not trusted. */
export const CLOSED_CODES = new Set([
  'invalid_json',
  'invalid_arguments',
  'unauthorized',
  'insufficient_scope',
  'forbidden',
  'not_found',
  'unknown_tool',
  'invalid_transition',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
]);

export interface FuzzOptions {
  seed: number;
  count: number;
  /** Progress and the first examples of each failure. */
  log?: (line: string) => void;
}

export interface FuzzFailure {
  kind: 'server_error' | 'internal' | 'unknown_code' | 'output_schema' | 'leak' | 'protocol';
  surface: 'direct' | 'mcp';
  tool: string;
  detail: string;
  /** The request body, cut to 300 characters. */
  request: string;
}

export interface FuzzReport {
  seed: number;
  calls: number;
  bySurface: { direct: number; mcp: number };
  succeeded: number;
  /** Error codes seen, with their counts. */
  codes: Record<string, number>;
  serverErrors: number;
  internal: number;
  unknownCodes: number;
  outputSchemaFailures: number;
  leaks: number;
  /** JSON-RPC errors other than internal ones (e.g. arguments that are not an object): counted, not failures. */
  protocolRefusals: number;
  failures: FuzzFailure[];
}

/** mulberry32: a small seeded generator, so a run is repeated exactly by its seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}
type Random = ReturnType<typeof generator>;

/** Pieces of hostile text: controls, combining marks, lone surrogates, emoji sequences, bidi, odd white space. */
export const FRAGMENTS = [
  '\u0000',
  'a\u0000b',
  '\u0301',
  'e\u0301',
  '\u0041\u030A',
  '\uD800',
  '\uDC00',
  '😀',
  '👩‍💻',
  '\u200B',
  '\u200D',
  '\u202E',
  '\u00A0',
  '\uFEFF',
  '\u2028',
  '\u0085',
  '\u001F',
  '\u007F',
  '\u009F',
  '\t',
  '\n',
  '\r\n',
  ' ',
  '   ',
  "'; drop table vendors; --",
  '%',
  '_',
  '\\',
  '"',
  '<script>alert(1)</script>',
  'null',
  'NaN',
  '1e309',
  'Ω',
  'ß',
  'İ',
  'ﬃ',
  'Ａ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '中文',
  'עברית',
  'ok',
  'Acme',
  'x',
];

function hostileString(random: Random): string {
  if (random.chance(0.05)) return random.pick(['', ' ', '\u0000', '\u0301', '\uD800', '\u200B']);
  if (random.chance(0.03)) return random.pick(['x', '😀', 'é', '\u0000']).repeat(random.int(100, 600));
  let text = '';
  const parts = random.int(1, 5);
  for (let i = 0; i < parts; i++) text += random.pick(FRAGMENTS);
  return text;
}

export const URLS = [
  'https://example.com',
  'http://example.com/path?q=1#frag',
  'https://bücher.example/straße',
  'https://example.com/a b',
  'https://example.com/ä',
  'https://example.com/a|b^c`d{e}',
  'https://example.com/%zz',
  'https://example.com/#a#b',
  'https://[::1]:8443/x',
  'https://user:pass@example.com/',
  'https://EXAMPLE.com/Caps',
  'ftp://example.com',
  'javascript:alert(1)',
  'https://',
  'https://exa\u0000mple.com',
  'https://例え.テスト/パス',
  'https://example.com/\u0301',
  `https://example.com/${'a'.repeat(1990)}`,
];

export const EMAILS = [
  'ada@example.com',
  'ADA@EXAMPLE.COM',
  ' ada@example.com ',
  'a.b+c@sub.example.org',
  'ädä@example.com',
  'no-at-sign',
  '@example.com',
  'a@b',
  `${'x'.repeat(300)}@example.com`,
];

type Schema = Record<string, unknown>;

interface Pools {
  /** Ids of the fuzzing organization by prefix (grows with successful adds). */
  own: Map<string, string[]>;
  /** Ids of the other organization (never to be seen in an answer). */
  foreign: Map<string, string[]>;
  ownOrganization: string;
  foreignOrganization: string;
}

function idPrefixOf(schema: Schema): string | undefined {
  const description = typeof schema.description === 'string' ? schema.description : '';
  return /`([a-z]{3})_\.\.\.`/.exec(description)?.[1];
}

function idFor(random: Random, pools: Pools, prefix: string): string {
  if (prefix === 'org') {
    return random.chance(0.9) ? pools.ownOrganization : pools.foreignOrganization;
  }
  const own = pools.own.get(prefix) ?? [];
  const foreign = pools.foreign.get(prefix) ?? [];
  if (random.chance(0.1) && foreign.length > 0) return random.pick(foreign);
  if (random.chance(0.05)) return `${prefix}_${'0'.repeat(24)}`;
  return own.length > 0 ? random.pick(own) : `${prefix}_unknown`;
}

function validDate(random: Random): string {
  const date = new Date(Date.UTC(random.int(1990, 2040), random.int(0, 11), random.int(1, 28)));
  return date.toISOString().slice(0, 10);
}

/** A deep value is serialised by hand (JSON.stringify would overflow the fuzzer's own stack). */
interface Deep {
  readonly deep: number;
  readonly shape: 'object' | 'array';
}
const deepValues: Deep[] = [];
const DEEP_MARK = '\u0001deep:';

function deep(random: Random): string {
  deepValues.push({ deep: random.pick([100, 10_000, 50_000]), shape: random.pick(['object', 'array']) });
  return `${DEEP_MARK}${deepValues.length - 1}`;
}

function serialise(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001deep:(\d+)"/g, (_match, index: string) => {
    const { deep: levels, shape } = deepValues[Number(index)] as Deep;
    return shape === 'object'
      ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
      : `${'['.repeat(levels)}${']'.repeat(levels)}`;
  });
}

function hostileValue(random: Random): unknown {
  return random.pick<() => unknown>([
    () => hostileString(random),
    () => null,
    () => random.pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2]),
    () => random.pick([true, false]),
    () => [],
    () => [hostileString(random)],
    () => ({}),
    () => ({ nested: hostileString(random) }),
    () => deep(random),
  ])();
}

function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

function generate(schema: Schema, random: Random, pools: Pools, depth = 0): unknown {
  if (random.chance(depth === 0 ? 0 : 0.08)) return hostileValue(random);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return generate(random.pick(branches), random, pools, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) {
    const value = String(random.pick(schema.enum));
    return random.chance(0.2) ? value.toLowerCase().replace(/_/g, random.pick([' ', '-', '_'])) : value;
  }
  switch (schema.type) {
    case 'object':
      return generateObject(schema, random, pools, depth);
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const max = Math.min(Number(schema.maxItems ?? 4), 4);
      const length = random.int(Number(schema.minItems ?? 0), Math.max(Number(schema.minItems ?? 0), max));
      return Array.from({ length }, () => generate(items, random, pools, depth + 1));
    }
    case 'integer':
    case 'number': {
      const min = Number(schema.minimum ?? -5);
      const max = Number(schema.maximum ?? 100);
      if (random.chance(0.1)) return random.pick([min - 1, max + 1, 2.5]);
      return random.int(min, max);
    }
    case 'boolean':
      return random.chance(0.5);
    case 'null':
      return null;
    case 'string':
      return generateString(schema, random, pools);
    default:
      return hostileValue(random);
  }
}

function generateString(schema: Schema, random: Random, pools: Pools): string {
  const prefix = idPrefixOf(schema);
  if (prefix) return idFor(random, pools, prefix);
  if (schema.format === 'uri') return random.pick(URLS);
  if (schema.format === 'email')
    return random.chance(0.7) ? `p${random.int(0, 1e9)}@example.com` : random.pick(EMAILS);
  const pattern = String(schema.pattern ?? '');
  if (pattern.includes('\\d{4}-\\d{2}-\\d{2}')) {
    return random.chance(0.9) ? validDate(random) : random.pick(['2026-02-30', '2026-13-01', '26-1-1', '']);
  }
  if (pattern === '^[A-Z]{2}$') return random.pick(['DE', 'us', ' fr ', 'XX', 'DEU', '']);
  if (/time/i.test(String(schema.description ?? ''))) {
    return random.chance(0.8) ? new Date(random.int(0, 2e12)).toISOString() : hostileString(random);
  }
  if (random.chance(0.3)) return `Fuzz ${random.int(0, 1e9)}`;
  return hostileString(random);
}

function generateObject(
  schema: Schema,
  random: Random,
  pools: Pools,
  depth: number,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (!required.has(key) && !random.chance(0.4)) continue;
    if (required.has(key) && random.chance(0.03)) continue;
    const name = random.chance(0.1) ? camelCase(key) : key;
    out[name] = generate(property, random, pools, depth + 1);
    if (random.chance(0.01)) out[camelCase(key)] = out[name]; // both spellings
  }
  if (random.chance(0.03)) out[random.pick(['unknown_field', '__proto__', 'constructor', 'id_', ''])] = 1;
  return out;
}

interface Answer {
  surface: 'direct' | 'mcp';
  status: number;
  /** `ok` with the result, or the error code. */
  outcome: { ok: true; result: unknown } | { ok: false; code: string };
  text: string;
}

async function callDirect(runtime: Runtime, token: string, tool: string, body: string): Promise<Answer> {
  const response = await runtime.app.request(`http://127.0.0.1/api/mcp/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  let parsed: { error?: { code?: unknown } } | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const outcome: Answer['outcome'] =
    response.status === 200
      ? { ok: true, result: parsed }
      : { ok: false, code: String(parsed?.error?.code ?? `(no JSON error, HTTP ${response.status})`) };
  return { surface: 'direct', status: response.status, outcome, text };
}

let rpcId = 0;
async function callMcp(
  runtime: Runtime,
  token: string,
  tool: string,
  argumentsJson: string,
): Promise<Answer> {
  rpcId += 1;
  const body = `{"jsonrpc":"2.0","id":${rpcId},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argumentsJson}}}`;
  const response = await runtime.app.request('http://127.0.0.1/api/mcp/v1?toolsets=all', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body,
  });
  const text = await response.text();
  let parsed:
    | {
        result?: {
          structuredContent?: Record<string, unknown>;
          isError?: boolean;
          content?: { text?: string }[];
        };
        error?: { code?: number; message?: string };
      }
    | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  let outcome: Answer['outcome'];
  if (parsed?.result && !parsed.result.isError) {
    outcome = { ok: true, result: parsed.result.structuredContent };
    if (parsed.result.content?.[0]?.text !== JSON.stringify(parsed.result.structuredContent)) {
      outcome = { ok: false, code: '(content text differs from structuredContent)' };
    }
  } else if (parsed?.result) {
    const error = parsed.result.structuredContent?.error as { code?: unknown } | undefined;
    outcome = { ok: false, code: String(error?.code ?? '(error result without a code)') };
  } else if (parsed?.error) {
    outcome = { ok: false, code: `jsonrpc:${parsed.error.code}` };
  } else {
    outcome = { ok: false, code: `(no JSON-RPC answer, HTTP ${response.status})` };
  }
  return { surface: 'mcp', status: response.status, outcome, text };
}

/** A migrated temporary database, a runtime without rate limit, two organizations with a record of every kind. */
async function setUp() {
  const scratch = await createScratchRuntime('fuzz');
  const { runtime, close } = scratch;
  const tokens: string[] = [];
  const organizations: string[] = [];
  for (const who of ['alice', 'bob']) {
    const { organizationId, token } = await scratch.owner(`${who}@fuzz.example`, `${who} org`);
    tokens.push(token);
    organizations.push(organizationId);
  }
  const [aliceToken = '', bobToken = ''] = tokens;
  const [orgA = '', orgB = ''] = organizations;
  const pools: Pools = {
    own: new Map(),
    foreign: new Map(),
    ownOrganization: orgA,
    foreignOrganization: orgB,
  };
  for (const [token, organizationId, pool] of [
    [aliceToken, orgA, pools.own],
    [bobToken, orgB, pools.foreign],
  ] as const) {
    const seeded = await seedExamples(async (tool, args) => {
      const answer = await callDirect(runtime, token, tool, JSON.stringify(args));
      if (!answer.outcome.ok) throw new Error(`seeding ${tool}: ${answer.text}`);
      return answer.outcome.result as Record<string, unknown>;
    }, organizationId);
    for (const [prefix, ids] of seeded) pool.set(prefix, ids);
  }
  return {
    runtime,
    aliceToken,
    pools,
    close,
  };
}

/**
 * Adds one record of every kind to an organization, from each kind's own example with its `xxx_...` references
 * filled from what exists (kinds that point at a later kind wait for the next pass). Returns the ids by prefix.
 */
export async function seedExamples(
  add: (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  organizationId: string,
): Promise<Map<string, string[]>> {
  const pool = new Map<string, string[]>();
  let pending = [...REGISTER_SPECS];
  for (let pass = 0; pass < 3 && pending.length > 0; pass++) {
    const later: typeof pending = [];
    for (const spec of pending) {
      const args = fillExample(spec.example, organizationId, pool);
      if (!args) {
        later.push(spec);
        continue;
      }
      const record = (await add(`add${spec.noun}`, args))[spec.key] as { id: string };
      pool.set(spec.prefix, [...(pool.get(spec.prefix) ?? []), record.id]);
    }
    pending = later;
  }
  if (pending.length > 0) throw new Error(`could not seed ${pending.map((spec) => spec.kind).join(', ')}`);
  return pool;
}

/** A kind's example with its `xxx_...` references filled from `pool`, or null while one is missing. */
export function fillExample(
  example: Record<string, unknown>,
  organizationId: string,
  pool: Map<string, string[]>,
): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(example)) {
    const fill = (item: unknown): unknown => {
      const prefix = typeof item === 'string' ? /^([a-z]{3})_\.\.\.$/.exec(item)?.[1] : undefined;
      if (!prefix) return item;
      if (prefix === 'org') return organizationId;
      return pool.get(prefix)?.[0] ?? null;
    };
    const filled = Array.isArray(value) ? value.map(fill) : fill(value);
    if (filled === null || (Array.isArray(filled) && filled.includes(null))) return null;
    out[key] = filled;
  }
  return out;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => {});
  const random = generator(options.seed);
  const world = await setUp();
  const ajv = new AjvJsonSchemaValidator();
  const cfworker = new CfWorkerJsonSchemaValidator();
  const tools = [...TOOLS.values()];
  const foreignIds = [world.pools.foreignOrganization, ...[...world.pools.foreign.values()].flat()];
  const report: FuzzReport = {
    seed: options.seed,
    calls: 0,
    bySurface: { direct: 0, mcp: 0 },
    succeeded: 0,
    codes: {},
    serverErrors: 0,
    internal: 0,
    unknownCodes: 0,
    outputSchemaFailures: 0,
    leaks: 0,
    protocolRefusals: 0,
    failures: [],
  };
  const fail = (failure: FuzzFailure) => {
    if (report.failures.filter((seen) => seen.kind === failure.kind).length < 5) {
      report.failures.push(failure);
      log(`${failure.kind} ${failure.surface} ${failure.tool}: ${failure.detail} <- ${failure.request}`);
    }
  };
  const validators = new Map<Tool, ((value: unknown) => string | undefined)[]>();
  const validatorsOf = (tool: Tool) => {
    let found = validators.get(tool);
    if (!found) {
      const schema = jsonSchemasOf(tool).output;
      found = [ajv, cfworker].map((provider, index) => {
        const validate = provider.getValidator(schema as never);
        return (value: unknown) => {
          const result = validate(value);
          return result.valid ? undefined : `${index === 0 ? 'ajv' : 'cfworker'}: ${result.errorMessage}`;
        };
      });
      validators.set(tool, found);
    }
    return found;
  };

  try {
    for (let call = 0; call < options.count; call++) {
      deepValues.length = 0;
      const tool = random.pick(tools);
      const args = random.chance(0.01)
        ? random.pick<unknown>([[], 'text', 42, null])
        : generate(jsonSchemasOf(tool).input, random, world.pools);
      const argumentsJson = serialise(args);
      const surface = random.chance(0.5) ? 'direct' : 'mcp';
      const answer =
        surface === 'direct'
          ? await callDirect(world.runtime, world.aliceToken, tool.name, argumentsJson)
          : await callMcp(world.runtime, world.aliceToken, tool.name, argumentsJson);
      report.calls += 1;
      report.bySurface[surface] += 1;
      const request = argumentsJson.length > 300 ? `${argumentsJson.slice(0, 300)}...` : argumentsJson;
      const base = { surface, tool: tool.name, request } as const;
      if (answer.status >= 500) {
        report.serverErrors += 1;
        fail({
          ...base,
          kind: 'server_error',
          detail: `HTTP ${answer.status}: ${answer.text.slice(0, 200)}`,
        });
      }
      if (answer.outcome.ok) {
        report.succeeded += 1;
        const errors = validatorsOf(tool)
          .map((validate) => validate((answer.outcome as { result: unknown }).result))
          .filter((error) => error !== undefined);
        if (errors.length > 0) {
          report.outputSchemaFailures += 1;
          fail({ ...base, kind: 'output_schema', detail: errors.join(' | ').slice(0, 300) });
        }
        remember(tool, (answer.outcome as { result: unknown }).result, world.pools);
      } else {
        const code = answer.outcome.code;
        report.codes[code] = (report.codes[code] ?? 0) + 1;
        if (code === 'internal' || code === 'jsonrpc:-32603') {
          report.internal += 1;
          fail({ ...base, kind: 'internal', detail: answer.text.slice(0, 200) });
        } else if (code.startsWith('jsonrpc:')) {
          report.protocolRefusals += 1;
        } else if (!CLOSED_CODES.has(code)) {
          report.unknownCodes += 1;
          fail({ ...base, kind: 'unknown_code', detail: `${code}: ${answer.text.slice(0, 200)}` });
        }
      }
      const leaked = foreignIds.filter((id) => answer.text.includes(id) && !argumentsJson.includes(id));
      if (leaked.length > 0) {
        report.leaks += 1;
        fail({
          ...base,
          kind: 'leak',
          detail: `answer names ${leaked.join(', ')}: ${answer.text.slice(0, 200)}`,
        });
      }
      if ((call + 1) % 1000 === 0) log(`${call + 1} calls`);
    }
  } finally {
    await world.close();
  }
  return report;
}

/** Ids of records the fuzzing organization created, for later calls to use. */
function remember(tool: Tool, result: unknown, pools: Pools): void {
  if (!tool.name.startsWith('add') || typeof result !== 'object' || result === null) return;
  for (const value of Object.values(result)) {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') continue;
    const prefix = id.slice(0, 3);
    const list = pools.own.get(prefix) ?? [];
    if (list.length < 50) pools.own.set(prefix, [...list, id]);
  }
}

/** True when the report meets the targets: no 5xx, no internal, no unknown code, no schema failure, no leak. */
export function fuzzPassed(report: FuzzReport): boolean {
  return (
    report.serverErrors === 0 &&
    report.internal === 0 &&
    report.unknownCodes === 0 &&
    report.outputSchemaFailures === 0 &&
    report.leaks === 0
  );
}
