// What clients read, under review: tools/list of every toolset and the OpenAPI document are compared with the JSON
// snapshots committed in test/snapshots/, as parsed JSON, and a difference is listed path by path. A change that is
// meant (a new field, a reworded description) is accepted with `UPDATE_TOOLSNAPS=true npm test`, which rewrites the
// snapshots, and the reviewer reads it in the diff of those files.
import { spawnSync } from 'node:child_process';
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

/** Each snapshot: its file under test/snapshots/ and the request whose JSON answer it holds. */
const TOOLS_LIST = [
  ...[...toolsetsOf(TOOLS.values()).keys()].map((toolset) => [toolset, `?toolsets=${toolset}`]),
  ['bare', ''],
  ['default', '?toolsets=default'],
  ['all', '?toolsets=all'],
  ['all-readonly', '?toolsets=all&readonly=true'],
].map(([name, query]) => ({ file: `tools-list/${name}.json`, path: `/api/mcp/v1${query}`, rpc: true }));
const OPENAPI = [
  { file: 'openapi/default.json', path: '/api/mcp/openapi.json', rpc: false },
  { file: 'openapi/all.json', path: '/api/mcp/openapi.json?toolsets=all', rpc: false },
];
const ALL = [...TOOLS_LIST, ...OPENAPI];

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
const written: string[] = [];

beforeAll(async () => {
  runtime = await createTestRuntime();
  token = (await createWorld(runtime)).aliceToken;
});

afterAll(async () => {
  await runtime.cleanup();
  // Rewritten snapshots take the formatter's layout, so `npm run lint` accepts them as they are.
  if (written.length > 0) {
    const biome = join(ROOT, 'node_modules/.bin/biome');
    const result = spawnSync(biome, ['format', '--write', ...written], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr}`);
  }
});

/** The live JSON answer a snapshot holds: tools/list's result (with a read_write token), or the document. */
async function live(snapshot: (typeof ALL)[number]): Promise<unknown> {
  const response = await runtime.app.request(`${BASE}${snapshot.path}`, {
    method: snapshot.rpc ? 'POST' : 'GET',
    headers: snapshot.rpc
      ? {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        }
      : {},
    ...(snapshot.rpc ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) } : {}),
  });
  expect(response.status, snapshot.path).toBe(200);
  const body = (await response.json()) as { result?: unknown };
  return snapshot.rpc ? body.result : body;
}

describe('schema snapshots (test/snapshots/)', () => {
  it.each(ALL.map((snapshot) => [snapshot.file, snapshot] as const))(
    '%s is what the server answers',
    async (file, snapshot) => {
      const path = join(SNAPSHOTS, file);
      const actual = await live(snapshot);
      if (UPDATE) {
        const unchanged =
          existsSync(path) && jsonChanges(JSON.parse(readFileSync(path, 'utf8')), actual).length === 0;
        if (!unchanged) {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
          written.push(path);
        }
      }
      expect(existsSync(path), `${file} is missing: run UPDATE_TOOLSNAPS=true npm test`).toBe(true);
      const changes = jsonChanges(JSON.parse(readFileSync(path, 'utf8')), actual);
      expect(
        changes,
        `${snapshot.path} differs from test/snapshots/${file} (- snapshot, + now): if that is meant, ` +
          'run UPDATE_TOOLSNAPS=true npm test and commit the snapshots',
      ).toEqual([]);
    },
  );

  it('holds no snapshot of a request that is no longer taken (a toolset renamed or removed)', () => {
    const expected = new Set(ALL.map((snapshot) => snapshot.file));
    const present = readdirSync(SNAPSHOTS, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.json'))
      .map((file) => relative(SNAPSHOTS, join(SNAPSHOTS, file)));
    const stale = present.filter((file) => !expected.has(file));
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
