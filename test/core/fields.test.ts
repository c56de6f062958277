// What input accepts, output validates: for every field of every kind (from the register specs), every hostile value
// the add tool's input schema accepts is stored as normalised and answered in a record that validates against the
// tool's published outputSchema, with the validators MCP clients use (ajv with formats, @cfworker/json-schema).
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAILS, FRAGMENTS, seedExamples, URLS } from '../../scripts/fuzz-engine.ts';
import { jsonSchemasOf } from '../../src/surfaces/schemas.ts';
import { normalizeText, normalizeUrl } from '../../src/tools/fields.ts';
import { REGISTER_SPECS, TOOLS } from '../../src/tools/index.ts';
import { callDirect, createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let pool: Map<string, string[]>;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
  pool = await seedExamples((tool, args) => ok(runtime, world.aliceToken, tool, args), world.orgA);
  // A stored file of org A (`fil_...`), uploaded with an inline evidence item, and Alice's account (`usr_...`).
  const inline = await ok(runtime, world.aliceToken, 'addEvidence', {
    organization_id: world.orgA,
    title: 'Inline file',
    content_base64: btoa('stored file'),
    file_name: 'stored.txt',
  });
  pool.set('fil', [String((inline.evidence as { file_id: string }).file_id)]);
  pool.set('usr', [world.alice.userId]);
});

afterAll(async () => runtime.cleanup());

const TEXTS = [
  ...FRAGMENTS,
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => ` ${FRAGMENTS.slice(i * 5, i * 5 + 5).join('')} x\u0000 `),
  '\u0000\u0000a',
  '\u0000\u0301',
  ' \u0000 ',
  'a\r\nb\rc',
  'x'.repeat(200),
  'x'.repeat(201),
  '😀'.repeat(100),
  'e\u0301'.repeat(100),
  'e\u0301'.repeat(101),
];

/** Dates and times: valid, impossible, in other zones and forms, before and after the examples' own dates. */
const DATES = [
  '2026-01-31',
  '2026-02-30',
  '2026-12-31',
  '2026-01-31T10:00:00Z',
  '2026-12-30T10:00:00+01:00',
  ' 2026-12-30T23:59:59.5-05:00 ',
  '2026-12-31T10:00Z',
  '2026-13-01T00:00:00Z',
  '2026-12-30 10:00:00Z',
];

type Schema = Record<string, unknown>;

/** Values to try for a field, from its published input schema, with the hostile texts in every string position. */
function candidates(schema: Schema): unknown[] {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return branches.flatMap(candidates);
  if (Array.isArray(schema.enum)) {
    return [
      ...schema.enum.flatMap((value) => [value, String(value).toLowerCase().replace(/_/g, ' ')]),
      ...TEXTS,
    ];
  }
  switch (schema.type) {
    case 'array': {
      const items = candidates((schema.items ?? {}) as Schema);
      return [[], ...items.slice(0, 20).map((item) => [item]), items.slice(0, 5)];
    }
    case 'integer':
    case 'number': {
      const min = Number(schema.minimum ?? 0);
      const max = Number(schema.maximum ?? 1000);
      return [min, max, min - 1, max + 1, (min + max) / 2, 1.5];
    }
    case 'boolean':
      return [true, false];
    case 'null':
      return [null];
    case 'string': {
      const prefix = /`([a-z]{3})_\.\.\.`/.exec(String(schema.description ?? ''))?.[1];
      const own = prefix ? (pool.get(prefix) ?? (prefix === 'org' ? [world.orgA] : [])) : [];
      const special = schema.format === 'uri' ? URLS : schema.format === 'email' ? EMAILS : [];
      return [...own, ...special, ...DATES, 'DE', ' fr ', ...TEXTS];
    }
    default:
      return TEXTS;
  }
}

/** Fields every add refuses by a rule (the schema takes them for updates and imports of existing records). */
const REFUSED_ON_ADD: Record<string, string[]> = {
  risk_acceptance: ['revoked_on'],
  access_review_entry: ['decision'],
  // A number of approvals goes with approval_rule QUORUM only, which the example does not set
  // (test/core/document-approvals.test.ts sets both).
  document: ['approvals_required'],
};

const ajv = new AjvJsonSchemaValidator();
const cfworker = new CfWorkerJsonSchemaValidator();

describe.each(REGISTER_SPECS.map((spec) => ({ spec, kind: spec.kind })))('$kind', ({ spec }) => {
  const add = TOOLS.get(`add${spec.noun}`);
  if (!add) throw new Error(`no add${spec.noun}`);
  const outputSchema = jsonSchemasOf(add).output;
  const validators = [ajv, cfworker].map((provider) => provider.getValidator(outputSchema as never));
  const inputProperties = (jsonSchemasOf(add).input.properties ?? {}) as Record<string, Schema>;
  const fields = Object.keys(spec.fields).filter((name) => !spec.fields[name]?.derived);
  let unique = 0;

  it.each(fields)('%s: every accepted value is stored normalised and validates as output', async (name) => {
    const base = fillBase();
    let accepted = 0;
    let succeeded = 0;
    const tried = new Set<string>();
    // The example's own value first: it satisfies the rules across fields (residual within inherent, the scale).
    const own = base()[name];
    for (const value of [...(own === undefined ? [] : [own]), ...candidates(inputProperties[name] ?? {})]) {
      const args: Record<string, unknown> = { ...base(), [name]: value };
      // An evidence item is a LINK or a FILE: trying file_id, the example's url goes.
      if (spec.kind === 'evidence' && name === 'file_id') delete args.url;
      const parsed = add.input.safeParse(args);
      if (!parsed.success) continue;
      accepted += 1;
      // Values the schema makes equal are stored alike: one of them is enough.
      const key = JSON.stringify((parsed.data as Record<string, unknown>)[name]);
      if (tried.has(key)) continue;
      tried.add(key);
      const result = await callDirect(runtime, world.aliceToken, add.name, args);
      if (result.status !== 200) {
        // Refused by a rule across fields (dates in order, workflow): a 4xx of the closed set, never a 5xx.
        expect({ value, refused: result.status >= 400 && result.status < 500 }).toEqual({
          value,
          refused: true,
        });
        continue;
      }
      succeeded += 1;
      for (const validate of validators) {
        const verdict = validate(result.body);
        expect({ value, error: verdict.errorMessage }).toEqual({ value, error: undefined });
      }
      const record = (result.body as Record<string, Record<string, unknown>>)[spec.key] ?? {};
      const expected = (parsed.data as Record<string, unknown>)[name];
      // A person may be named by email or full name: the record stores the id of the person it names.
      if (spec.fields[name]?.ref === 'person' && typeof expected === 'string' && !expected.startsWith('per_'))
        expect({ value, stored: String(record[name]).slice(0, 4) }).toEqual({ value, stored: 'per_' });
      // Other text is stored exactly as the schema normalised it (what the caller reads back is what was accepted).
      else if (typeof expected === 'string')
        expect({ value, stored: record[name] }).toEqual({ value, stored: expected });
    }
    expect(accepted).toBeGreaterThan(0);
    // A field a rule refuses on add (an acceptance is revoked later, with updateRiskAcceptance) is never stored here.
    if (REFUSED_ON_ADD[spec.kind]?.includes(name)) expect(succeeded).toBe(0);
    else expect(succeeded).toBeGreaterThan(0);
  });

  /** The kind's example as arguments, with fresh values for unique fields so records never collide. */
  function fillBase(): () => Record<string, unknown> {
    const example = Object.fromEntries(
      Object.entries(spec.example).map(([key, value]) => {
        const prefix = typeof value === 'string' ? /^([a-z]{3})_\.\.\.$/.exec(value)?.[1] : undefined;
        if (!prefix) return [key, value];
        return [key, prefix === 'org' ? world.orgA : pool.get(prefix)?.[0]];
      }),
    );
    return () => {
      unique += 1;
      const fresh = Object.fromEntries(
        (spec.unique ?? []).map((entry) => {
          const field = typeof entry === 'string' ? entry : entry.field;
          return [
            field,
            field === 'email' ? `unique${unique}@example.com` : `${String(example[field])} ${unique}`,
          ];
        }),
      );
      return { ...example, ...fresh };
    };
  }
});

describe('normalisation of text and URLs', () => {
  it.each([
    ['\u0000', false, ''],
    ['a\u0000b', false, 'ab'],
    [' e\u0301 ', false, '\u00e9'],
    ['\uD800x', false, '\uFFFDx'],
    ['a\r\nb\tc\u0085d', false, 'a  b c d'],
    ['a\r\nb\rc\td\u0000', true, 'a\nb\nc\td'],
    ['\u200B', false, '\u200B'],
    ['\u00A0\uFEFFx\u2028', false, 'x'],
  ] as const)('normalizeText(%j, multiline %s) is %j', (input, multiline, expected) => {
    expect(normalizeText(input, multiline)).toBe(expected);
  });

  it.each([
    ['https://slack.com', 'https://slack.com'],
    ['https://EXAMPLE.com/Caps', 'https://example.com/Caps'],
    ['https://bücher.example/straße', 'https://xn--bcher-kva.example/stra%C3%9Fe'],
    ['https://example.com/a|b^c`d{e}', 'https://example.com/a%7Cb%5Ec%60d%7Be%7D'],
    ['https://example.com/%zz', 'https://example.com/%25zz'],
    ['https://example.com/#a#b', 'https://example.com/#a%23b'],
    ['https://example.com/[x]?y=[z]', 'https://example.com/%5Bx%5D?y=%5Bz%5D'],
    [' https://x.com/a\u0000b ', 'https://x.com/ab'],
    ['ftp://x.com', 'ftp://x.com'],
    ['not a url', 'not a url'],
  ])('normalizeUrl(%j) is %j', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });
});
