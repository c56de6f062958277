// Calls of the tool map on behalf of the signed-in person: through the invocation seam (checked, validated, logged
// with surface "web"), or run directly for display lookups; the names of referenced records and picker choices.
import type { Context } from 'hono';
import { storeFileTool } from '../files/store-file-tool.ts';
import { newId } from '../ids.ts';
import { type InvokeResult, invokeTool } from '../surfaces/invoke.ts';
import type { RegisterKind } from '../tools/index.ts';
import { orderFieldsOf } from '../tools/registers/spec.ts';
import { contextOutsideSeam, type Tool } from '../tools/types.ts';
import { type WebDeps, type WebEnv, webPrincipal, webWriterPrincipal } from './context.ts';
import { displayName, registerPageByKind } from './register-pages.ts';

type Row = Record<string, unknown>;

/** Records named on a page, by id: what to show and where it links. */
export type NameIndex = Map<string, { name: string; href: string; kind: RegisterKind }>;

/** A picker lists this many records at most; a register with more takes an id, with suggestions. */
const PICKER_LIMIT = 100;
/** Names are looked up among this many records of each register (the most recent). */
const NAMES_LIMIT = 100;

export interface Picker {
  choices: { id: string; name: string }[];
  /** False when the register holds more records than the picker lists. */
  complete: boolean;
  total: number;
  /** Where to look a record up when the picker cannot list them all. */
  registerHref: string;
}

export type Pickers = Partial<Record<RegisterKind, Picker>>;

export interface WebCalls {
  /** A read tool call with the person's read rights. */
  read(tool: Tool, args: Row): Promise<InvokeResult>;
  /**
   * A write tool call with exactly the rights of the person's role (a VIEWER is refused as a read token is). The
   * writes of one request (one form save: a risk changed and two measures linked) share one call id, so the history
   * shows them as one save.
   */
  write(tool: Tool, args: Row): Promise<InvokeResult>;
  /** A file an upload form posted, stored through the seam as a storeFile call with the person's write rights. */
  store(
    organizationId: string,
    file: { name: string; stream: ReadableStream<Uint8Array> },
  ): Promise<InvokeResult>;
  /**
   * A read tool run directly, its arguments parsed by its schema but not logged as a call of its own: lookups that
   * only serve the page (names, pickers) and the later pages of an export whose first page was a call.
   */
  run(tool: Tool, args: Row): Promise<Row>;
  /** Names and links of the records of `kinds` (the most recent of each register), for the ids a page shows. */
  names(organizationId: string, kinds: Iterable<RegisterKind>): Promise<NameIndex>;
  /** The choices of each register a form's references point into (up to PICKER_LIMIT, by name). */
  pickers(organizationId: string, kinds: Iterable<RegisterKind>): Promise<Pickers>;
}

export function webCalls(c: Context<WebEnv>, deps: WebDeps): WebCalls {
  const reader = () => webPrincipal(c.get('user'), c.get('memberships'));
  const call = (tool: Tool, args: Row, principal: ReturnType<typeof reader>, callId?: string) =>
    invokeTool(deps.invoke, tool, args, principal, 'web', c.get('requestId'), callId);
  const saveId = newId('cal');
  const run = async (tool: Tool, args: Row): Promise<Row> => {
    const ctx = contextOutsideSeam(deps.database.db, reader(), deps.now, 'web', deps.invoke.files);
    return tool.run(ctx, tool.input.parse(args));
  };

  /** Each register of `kinds` listed once with `args`, as [kind, page, records, total]. */
  async function listEach(
    organizationId: string,
    kinds: Iterable<RegisterKind>,
    args: (kind: RegisterKind) => Row,
  ) {
    const lists = [...new Set(kinds)].map(async (kind) => {
      const page = registerPageByKind(kind);
      if (!page) return null;
      const result = await run(page.tools.list, { organization_id: organizationId, ...args(kind) });
      const records = (result[page.spec.listKey] as Row[] | undefined) ?? [];
      return { kind, page, records, total: Number(result.total_count ?? records.length) };
    });
    return (await Promise.all(lists)).filter((list) => list !== null);
  }

  return {
    read: (tool, args) => call(tool, args, reader()),
    write: (tool, args) => call(tool, args, webWriterPrincipal(c.get('user'), c.get('memberships')), saveId),
    store: (organizationId, file) =>
      invokeTool(
        deps.invoke,
        storeFileTool,
        { organization_id: organizationId, name: file.name || 'file' },
        webWriterPrincipal(c.get('user'), c.get('memberships')),
        'web',
        c.get('requestId'),
        undefined,
        undefined,
        file.stream,
      ),
    run,
    async names(organizationId, kinds) {
      const names: NameIndex = new Map();
      for (const { kind, page, records } of await listEach(organizationId, kinds, () => ({
        size: NAMES_LIMIT,
      }))) {
        for (const record of records) {
          names.set(String(record.id), {
            kind,
            name: displayName(record),
            href: `/orgs/${organizationId}/${page.slug}/${String(record.id)}`,
          });
        }
      }
      return names;
    },
    async pickers(organizationId, kinds) {
      const pickers: Pickers = {};
      const lists = await listEach(organizationId, kinds, (kind) => {
        const page = registerPageByKind(kind);
        const sortField = ['name', 'full_name', 'reference_id'].find(
          (field) => page && field in orderFieldsOf(page.spec),
        );
        return {
          size: PICKER_LIMIT,
          ...(sortField ? { order_by: { field: sortField, direction: 'ASC' } } : {}),
        };
      });
      for (const { kind, page, records, total } of lists) {
        pickers[kind] = {
          choices: records.map((record) => ({ id: String(record.id), name: displayName(record) })),
          complete: total <= records.length,
          total,
          registerHref: `/orgs/${organizationId}/${page.slug}`,
        };
      }
      return pickers;
    },
  };
}
