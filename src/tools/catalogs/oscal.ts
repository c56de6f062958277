// Reads an OSCAL catalog (JSON, as NIST publishes SP 800-53, SP 800-171 and CSF 2.0): groups become sections,
// controls and their enhancements requirements, each statement's prose (with its parameters) the description. The
// JSON is measured against a parse budget first, and a description is built no longer than its limit (parameters
// inserted a thousand times over must not grow a small file into gigabytes).
import { invalidArguments } from '../../errors.ts';
import { type Catalog, type CatalogEntry, ENTRY_LIMITS } from './entries.ts';
import { checkJsonBudget, type JsonBudget } from './json-budget.ts';

/**
 * The parse budget of an OSCAL catalog, the CLI's files included: NIST's SP 800-53 rev. 5 catalog is about 10 MB and
 * nests about 15 levels; JSON.parse takes a few tens of bytes a value, so 4 million values are some 200 MB at most.
 */
export const OSCAL_BUDGET: JsonBudget = { maxLength: 64 * 1024 * 1024, maxDepth: 64, maxValues: 4_000_000 };

/** A description is built at most one character past its limit: longer, it is refused (entries.ts) whatever follows. */
const MAX_TEXT = ENTRY_LIMITS.description + 1;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, message: string): never {
  throw invalidArguments(`Not an OSCAL catalog: ${path}: ${message}.`, [{ path, message }]);
}

function stringAt(node: Json, key: string, path: string): string {
  const value = node[key];
  if (typeof value !== 'string') fail(`${path}.${key}`, 'expected a string');
  return value;
}

function listAt(node: Json, key: string, path: string): Json[] {
  const value = node[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${path}.${key}`, 'expected a list');
  value.forEach((item, index) => {
    if (!isObject(item)) fail(`${path}.${key}[${index}]`, 'expected an object');
  });
  return value as Json[];
}

/** A prop's value by name (the first without a class, or of any class when none is plain). */
function prop(node: Json, name: string): string | undefined {
  const props = Array.isArray(node.props) ? (node.props.filter(isObject) as Json[]) : [];
  const named = props.filter((item) => item.name === name && typeof item.value === 'string');
  return (named.find((item) => item.class === undefined) ?? named[0])?.value as string | undefined;
}

/**
 * The reference of a group or control: its label (SP 800-53's `AC-2(1)`), except where the label names the id in
 * parentheses (CSF 2.0's `GOVERN (GV)`: the id, `GV`, is the reference); else its id.
 */
function referenceOf(node: Json, id: string | undefined): string | undefined {
  const label = prop(node, 'label');
  if (label && id && label.toLowerCase().endsWith(`(${id.toLowerCase()})`)) return id;
  return label ?? id;
}

/**
 * `{{ insert: param, ac-1_prm_1 }}` as the parameter's label or choices, in brackets. The id stops at a brace, so an
 * insertion never closed is read only up to the next one (linear).
 */
function withParameters(prose: string, params: Map<string, Json>): string {
  // What the insertions have added over the placeholders they replaced: past the limit, placeholders stay as they are.
  let grown = 0;
  return prose.replace(/\{\{\s*insert:\s*param,\s*([^{}\s]+)\s*\}\}/g, (whole, id: string, at: number) => {
    if (at + grown > MAX_TEXT) return whole;
    const param = params.get(id);
    const select = param && isObject(param.select) ? param.select : undefined;
    const text =
      select && Array.isArray(select.choice)
        ? `[Selection: ${select.choice.filter((choice) => typeof choice === 'string').join('; ')}]`
        : param && typeof param.label === 'string'
          ? `[Assignment: ${param.label}]`
          : '[Assignment: organization-defined value]';
    grown += text.length - whole.length;
    return text;
  });
}

/**
 * A statement part's prose and its items' ("a. ...", "1. ..."), one per line, indented by depth; no more lines once
 * `room` (the characters left for the description) is spent.
 */
function statementText(
  part: Json,
  params: Map<string, Json>,
  depth: number,
  path: string,
  room: { left: number },
): string[] {
  const lines: string[] = [];
  if (room.left < 0) return lines;
  const label = prop(part, 'label');
  const prose = typeof part.prose === 'string' ? withParameters(part.prose, params) : '';
  if (label || prose) {
    const line = `${'  '.repeat(Math.max(0, depth - 1))}${label ? `${label} ` : ''}${prose}`.trimEnd();
    room.left -= line.length + 1;
    lines.push(line);
  }
  listAt(part, 'parts', path).forEach((child, index) => {
    lines.push(...statementText(child, params, depth + 1, `${path}.parts[${index}]`, room));
  });
  return lines;
}

export function parseOscalCatalog(text: string, budget: JsonBudget = OSCAL_BUDGET): Catalog {
  checkJsonBudget(text, budget, 'The catalog');
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    fail('content', `not JSON (${error instanceof Error ? error.message : 'unreadable'})`);
  }
  return oscalCatalogOf(root);
}

/** The members of an OSCAL document the reader uses: a streamed catalog keeps these only (json-stream.ts). */
export const OSCAL_MEMBERS: ReadonlySet<string> = new Set([
  'catalog',
  'groups',
  'controls',
  'params',
  'parts',
  'props',
  'id',
  'title',
  'class',
  'name',
  'value',
  'prose',
  'label',
  'select',
  'choice',
]);

/** The parts whose text a description or overview holds: a streamed catalog drops the others' (guidance) at once. */
export const OSCAL_TEXT_PARTS: ReadonlySet<string> = new Set(['statement', 'item', 'overview']);

/** An OSCAL catalog already parsed (as JSON.parse or a stream builds it). */
export function oscalCatalogOf(root: unknown): Catalog {
  if (!isObject(root) || !isObject(root.catalog))
    fail('catalog', 'expected an object with a "catalog" member');
  const catalog = root.catalog;
  const entries: CatalogEntry[] = [];
  const skipped: Catalog['skipped'] = [];
  const params = new Map<string, Json>();

  const visitControl = (control: Json, path: string, parent: string | null, position: number) => {
    const id = stringAt(control, 'id', path);
    const title = stringAt(control, 'title', path);
    const reference = referenceOf(control, id) ?? id;
    for (const param of listAt(control, 'params', path))
      if (typeof param.id === 'string') params.set(param.id, param);
    if (prop(control, 'status') === 'withdrawn') {
      skipped.push({ reference, reason: 'withdrawn' });
      return;
    }
    const statement = listAt(control, 'parts', path)
      .map((part, index) => ({ part, index }))
      .filter(({ part }) => part.name === 'statement');
    const room = { left: MAX_TEXT };
    const description = statement
      .flatMap(({ part, index }) => statementText(part, params, 0, `${path}.parts[${index}]`, room))
      .join('\n');
    entries.push({
      reference,
      title,
      description: description || null,
      parent,
      isSection: false,
      position,
      source: path,
    });
    for (const [index, child] of listAt(control, 'controls', path).entries())
      visitControl(child, `${path}.controls[${index}]`, reference, index);
  };

  const visitGroup = (group: Json, path: string, parent: string | null, position: number) => {
    const title = stringAt(group, 'title', path);
    const id = typeof group.id === 'string' ? group.id : undefined;
    const reference = referenceOf(group, id) ?? fail(`${path}.id`, 'expected a string');
    // A group's overview (CSF 2.0's functions have one) describes the section.
    const overview = listAt(group, 'parts', path)
      .filter((part) => part.name === 'overview' && typeof part.prose === 'string')
      .map((part) => withParameters(String(part.prose), params))
      .join('\n');
    entries.push({
      reference,
      title,
      description: overview || null,
      parent,
      isSection: true,
      position,
      source: path,
    });
    const groups = listAt(group, 'groups', path);
    for (const [index, child] of groups.entries())
      visitGroup(child, `${path}.groups[${index}]`, reference, index);
    for (const [index, control] of listAt(group, 'controls', path).entries())
      visitControl(control, `${path}.controls[${index}]`, reference, groups.length + index);
  };

  const groups = listAt(catalog, 'groups', 'catalog');
  for (const [index, group] of groups.entries()) visitGroup(group, `catalog.groups[${index}]`, null, index);
  for (const [index, control] of listAt(catalog, 'controls', 'catalog').entries())
    visitControl(control, `catalog.controls[${index}]`, null, groups.length + index);
  return { entries, skipped };
}
