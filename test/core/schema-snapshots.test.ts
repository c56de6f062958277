// What clients read, under review: every tool's tools/list entry and OpenAPI operation (one file per tool, as
// github-mcp-server's __toolsnaps__), the OpenAPI document's shared part and each connection's tool names are
// compared with the JSON snapshots committed in test/snapshots/, as parsed JSON, and a difference is listed path by path. A change that is
// meant (a new field, a reworded description) is accepted with `UPDATE_TOOLSNAPS=true npm test`, which rewrites the
// snapshots, and the reviewer reads it in the diff of those files.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import { toolsetsOf } from '../../src/tools/toolsets.ts';
import { BASE, createTestRuntime, createWorld, type TestRuntime } from '../helpers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SNAPSHOTS = join(ROOT, 'test/snapshots');
const UPDATE = process.env.UPDATE_TOOLSNAPS === 'true';

/** The connections whose tools/list the snapshots cover: the bare URL, the default set, each toolset, all, read-only. */
const CONNECTIONS = [
  ['bare', ''],
  ['default', '?toolsets=default'],
  ...[...toolsetsOf(TOOLS.values()).keys()].map((toolset) => [toolset, `?toolsets=${toolset}`]),
  ['all', '?toolsets=all'],
  ['all-readonly', '?toolsets=all&readonly=true'],
] as const;

interface ListedTool {
  name: string;
}
interface OpenApiDocument {
  paths: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * What the server publishes, cut into the snapshot files: one per tool (its tools/list entry and its OpenAPI
 * operation, so a change to one tool rewrites one file; a connection lists only what fits its budget, so the entries
 * are gathered from every connection), the OpenAPI document's shared part, and which tools each connection lists.
 */
async function publishedFiles(): Promise<Map<string, unknown>> {
  const files = new Map<string, unknown>();
  const listed = new Map<string, ListedTool[]>();
  const entries = new Map<string, ListedTool>();
  const operations = new Map<string, unknown>();
  let shared: OpenApiDocument | undefined;
  for (const [name, query] of CONNECTIONS) {
    const tools = await toolsList(`/api/mcp/v1${query}`);
    listed.set(name, tools);
    for (const tool of tools) entries.set(tool.name, tool);
    const openapi = (await fetchJson(`/api/mcp/openapi.json${query}`)) as OpenApiDocument;
    shared ??= openapi;
    for (const [path, operation] of Object.entries(openapi.paths)) operations.set(path, operation);
  }
  expect([...entries.keys()].sort(), 'every tool is listed by some connection').toEqual(
    [...TOOLS.keys()].sort(),
  );
  for (const name of TOOLS.keys())
    files.set(`tools/${name}.json`, {
      mcp: entries.get(name),
      openapi: operations.get(`/api/mcp/tools/${name}`) ?? null,
    });
  const { paths: _paths, ...document } = shared ?? { paths: {} };
  files.set('openapi.json', document);
  files.set(
    'connections.json',
    Object.fromEntries([...listed].map(([name, tools]) => [name, tools.map((tool) => tool.name)])),
  );
  return files;
}

const MAX_SHOWN = 160;
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
};

/** An array's items by name when each item has a unique one (tools, parameters), else by position. */
function keyed(items: unknown[]): Map<string, unknown> {
  const names = items.map((item) => (item as { name?: unknown } | null)?.name);
  const byName = names.every((name) => typeof name === 'string') && new Set(names).size === names.length;
  return new Map(items.map((item, index) => [byName ? `[${names[index]}]` : `[${index}]`, item]));
}

/** Every difference between two parsed JSON values, one line a path: `+` added, `-` removed, `~` changed. */
function jsonChanges(before: unknown, after: unknown, path = ''): string[] {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null;
  if (isObject(before) && isObject(after) && Array.isArray(before) === Array.isArray(after)) {
    const [a, b] = Array.isArray(before)
      ? [keyed(before), keyed(after as unknown[])]
      : [new Map(Object.entries(before as object)), new Map(Object.entries(after as object))];
    const changes: string[] = [];
    const child = (key: string) => (key.startsWith('[') ? `${path}${key}` : path ? `${path}.${key}` : key);
    for (const [key, value] of a) {
      if (!b.has(key)) changes.push(`- ${child(key)}: ${shown(value)}`);
      else changes.push(...jsonChanges(value, b.get(key), child(key)));
    }
    for (const [key, value] of b) if (!a.has(key)) changes.push(`+ ${child(key)}: ${shown(value)}`);
    if (Array.isArray(before) && changes.length === 0 && [...a.keys()].join() !== [...b.keys()].join())
      changes.push(`~ ${path || '(root)'}: order ${shown([...a.keys()])} → ${shown([...b.keys()])}`);
    return changes;
  }
  if (Object.is(before, after)) return [];
  if (typeof before === 'string' && typeof after === 'string') {
    // Long texts (descriptions) are shown from a little before where they start to differ.
    let at = 0;
    while (at < before.length && before[at] === after[at]) at += 1;
    const from = Math.max(0, at - 40);
    const part = (text: string) => `${from > 0 ? '…' : ''}${shown(text.slice(from))}`;
    return [`~ ${path}: ${part(before)} → ${part(after)}`];
  }
  return [`~ ${path || '(root)'}: ${shown(before)} → ${shown(after)}`];
}

let runtime: TestRuntime;
let token: string;

beforeAll(async () => {
  runtime = await createTestRuntime();
  token = (await createWorld(runtime)).aliceToken;
});

afterAll(async () => {
  await runtime.cleanup();
});

async function fetchJson(path: string, init?: RequestInit): Promise<unknown> {
  const response = await runtime.app.request(`${BASE}${path}`, init);
  expect(response.status, path).toBe(200);
  return response.json();
}

/** tools/list's tools on a connection (a read_write token). */
async function toolsList(path: string): Promise<ListedTool[]> {
  const body = (await fetchJson(path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })) as { result: { tools: ListedTool[] } };
  return body.result.tools;
}

let published: Map<string, unknown>;

describe('schema snapshots (test/snapshots/)', () => {
  beforeAll(async () => {
    published = await publishedFiles();
  });

  it('has a snapshot per tool, and each is what the server publishes', () => {
    const differences: string[] = [];
    for (const [file, actual] of published) {
      const path = join(SNAPSHOTS, file);
      const before = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as unknown) : undefined;
      const changes = before === undefined ? ['(missing)'] : jsonChanges(before, actual);
      if (changes.length === 0) continue;
      if (UPDATE) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
      } else differences.push(`test/snapshots/${file}:`, ...changes.map((change) => `  ${change}`));
    }
    expect(
      differences,
      'what the server publishes differs from test/snapshots/ (- snapshot, + now): if that is meant, run ' +
        'UPDATE_TOOLSNAPS=true npm test and commit the snapshots',
    ).toEqual([]);
  });

  it('holds no snapshot of a tool or file that is no longer published', () => {
    const present = readdirSync(SNAPSHOTS, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.json'))
      .map((file) => relative(SNAPSHOTS, join(SNAPSHOTS, file)));
    const stale = present.filter((file) => !published.has(file));
    if (UPDATE) for (const file of stale) rmSync(join(SNAPSHOTS, file));
    expect(UPDATE ? [] : stale, 'stale snapshots: run UPDATE_TOOLSNAPS=true npm test').toEqual([]);
  });

  it('lists a change path by path: added, removed and changed values, tools by name', () => {
    const before = { tools: [{ name: 'a', description: 'old' }, { name: 'b' }], version: 1 };
    const after = { tools: [{ name: 'a', description: 'new' }, { name: 'c' }], version: 1, extra: [1] };
    expect(jsonChanges(before, after)).toEqual([
      '~ tools[a].description: "old" → "new"',
      '- tools[b]: {"name":"b"}',
      '+ tools[c]: {"name":"c"}',
      '+ extra: [1]',
    ]);
    const long = 'x'.repeat(300);
    expect(jsonChanges({ text: `${long} old` }, { text: `${long} new` })).toEqual([
      `~ text: …"${'x'.repeat(39)} old" → …"${'x'.repeat(39)} new"`,
    ]);
    expect(jsonChanges({ list: [1, 2] }, { list: [2, 1] })).toEqual(['~ list[0]: 1 → 2', '~ list[1]: 2 → 1']);
    expect(
      jsonChanges({ tools: [{ name: 'a' }, { name: 'b' }] }, { tools: [{ name: 'b' }, { name: 'a' }] }),
    ).toEqual(['~ tools: order ["[a]","[b]"] → ["[b]","[a]"]']);
  });
});
