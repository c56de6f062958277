// The change history: the statements that record a change inside the write's own batch, and the listChanges tool.
import { and, count, eq, getTableColumns, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { type Db, selectRow } from '../db/client.ts';
import { apiTokens, people, proposals, recordChanges, users } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { requireOrganization } from './access.ts';
import { caseInsensitiveEnum, cursorSchema, idOf, PAGE_SIZE, sizeSchema, timestampSchema } from './fields.ts';
import {
  type CursorPayload,
  cappedCount,
  carriedCount,
  cursorValue,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  itemsWithinBudget,
  type OrderField,
  pageRanges,
  pageShortenedSchema,
  TOTAL_COUNT_CAP,
} from './pagination.ts';
import { defineTool, READ_ANNOTATIONS, RECORD_SCHEMAS, type Tool, type ToolContext } from './types.ts';

export const CHANGE_ACTIONS = ['add', 'update', 'delete', 'link', 'unlink'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];
export const CHANGE_SURFACES = ['mcp', 'direct', 'web', 'cli', 'import', 'link'] as const;

type Values = Record<string, unknown>;

export interface Change {
  /** The tool that made it (e.g. `updateRisk`). */
  tool: string;
  kind: string;
  recordId: string;
  organizationId: string;
  action: ChangeAction;
  before: Values | null;
  after: Values | null;
  at: string;
}

/** Who made a change, as stored on its row. */
export interface ChangeActor {
  surface: (typeof CHANGE_SURFACES)[number];
  /** The account that acted; null only when a person without one acted through a public link. */
  user_id: string | null;
  /** The person of the register (`per_...`) who acted through a public link; null for an account's change. */
  person_id: string | null;
  token_id: string | null;
  call_id: string | null;
  /** The proposal an approved write applies (src/proposals/); null for a direct write. */
  proposal_id: string | null;
}

/** What writes history outside a tool call: the database and who acts (a person through a public link). */
export interface HistoryWriter {
  db: Db;
  actor: ChangeActor;
}

/** The writer for a person of the register acting through a public signed link (no account, token or call). */
export function linkWriter(db: Db, personId: string): HistoryWriter {
  return {
    db,
    actor: {
      surface: 'link',
      user_id: null,
      person_id: personId,
      token_id: null,
      call_id: null,
      proposal_id: null,
    },
  };
}

/** Who made a change, as stored on its row: API changes carry the user and the token; web and CLI ones, no token. */
function actorOf(ctx: ToolContext | HistoryWriter): ChangeActor {
  if ('actor' in ctx) return ctx.actor;
  return {
    surface: ctx.surface,
    user_id: ctx.principal.userId,
    person_id: null,
    token_id: ctx.surface === 'web' || ctx.surface === 'cli' ? null : ctx.principal.tokenId,
    call_id: ctx.callId,
    proposal_id: ctx.proposalId ?? null,
  };
}

/**
 * The history row of a change, inserted only if the statement just before it in the batch wrote a row
 * (`changes()` counts the rows of the previous INSERT/UPDATE/DELETE, not those of triggers): a refused or
 * conflicting write leaves no history, and nothing is written without its history row. Place it right after the
 * write; `ctx.writeExtras(CHANGED_A_ROW)` may follow it, as this insert writes a row exactly when the write did.
 */
export function changeAfterWrite(ctx: ToolContext | HistoryWriter, change: Change): BatchItem<'sqlite'> {
  return changeWhere(ctx, change, sql`changes() > 0`);
}

/**
 * Per register kind, SQL for a record's whole state as history keeps it (a JSON object of its history-held fields and
 * relation lists, read over the register's table by its column names): src/tools/registers/records.ts registers each.
 */
const STATES = new Map<string, { table: SQLiteTable; idColumn: SQLiteColumn; state: SQL }>();

/** Registers how the state of a kind's records is read (see STATES). */
export function keepStateOf(kind: string, table: SQLiteTable, idColumn: SQLiteColumn, state: SQL): void {
  STATES.set(kind, { table, idColumn, state });
}

/** How the state of a kind's records is read (see STATES), for seeding history in benches; undefined if none. */
export function keptStateOf(kind: string): SQL | undefined {
  return STATES.get(kind)?.state;
}

/** SQL: the state of record `id` of `kind` as its row stands when the statement runs; null for kinds without one. */
function stateOfRecord(kind: string, id: string | SQL): SQL {
  const of = STATES.get(kind);
  return of ? sql`(select ${of.state} from ${of.table} where ${of.idColumn} = ${id})` : sql`null`;
}

/**
 * SQL: the state of the record whose kind and id are SQL values (a row of several kinds' history rows), as its row
 * stands when the statement runs; null for a delete and for kinds without one.
 */
export function stateOfAny(kinds: readonly string[], kind: SQL, id: SQL, action: SQL): SQL {
  const known = [...new Set(kinds)].filter((name) => STATES.has(name));
  if (known.length === 0) return sql`null`;
  const cases = known.map((name) => sql`when ${name} then ${stateOfRecord(name, id)}`);
  return sql`case when ${action} = 'delete' then null else case ${kind} ${sql.join(cases, sql` `)} end end`;
}

/**
 * The history row of a change, inserted only if `condition` holds when the statement runs. It reads the record's
 * state from its row as it then stands: place it after the statements that change the record.
 */
export function changeWhere(
  ctx: ToolContext | HistoryWriter,
  change: Change,
  condition: SQL,
): BatchItem<'sqlite'> {
  const row = {
    id: newId('chg'),
    organization_id: change.organizationId,
    kind: change.kind,
    record_id: change.recordId,
    action: change.action,
    tool: change.tool,
    before: change.before,
    after: change.after,
    created_at: change.at,
    state: change.action === 'delete' ? sql`null` : stateOfRecord(change.kind, change.recordId),
    ...actorOf(ctx),
  };
  return ctx.db.insert(recordChanges).select(selectRow(recordChanges, row, condition));
}

/**
 * History rows for every record of `table` that `where` selects, each with its own id and the before/after JSON
 * computed per row by SQL (e.g. the records whose owner is cleared because the owner was deleted).
 */
export function changesOfRows(
  ctx: ToolContext,
  options: {
    tool: string;
    kind: string;
    action?: ChangeAction;
    table: SQLiteTable;
    idColumn: SQLiteColumn;
    organizationColumn: SQLiteColumn;
    before: SQL;
    after: SQL;
    at: string;
    where: SQL;
    /** The rows already hold the change (the statement runs after the write): history keeps their state too. */
    written?: boolean;
  },
): BatchItem<'sqlite'> {
  const actor = actorOf(ctx);
  const of = STATES.get(options.kind);
  // 12 random bytes as hex: 96 bits, and hex digits are valid characters of our ids.
  const values: Record<keyof typeof recordChanges.$inferInsert, SQL> = {
    id: sql`'chg_' || lower(hex(randomblob(12)))`,
    organization_id: sql`${options.organizationColumn}`,
    kind: sql`${options.kind}`,
    record_id: sql`${options.idColumn}`,
    action: sql`${options.action ?? 'update'}`,
    surface: sql`${actor.surface}`,
    user_id: sql`${actor.user_id}`,
    person_id: sql`${actor.person_id}`,
    token_id: sql`${actor.token_id}`,
    call_id: sql`${actor.call_id}`,
    tool: sql`${options.tool}`,
    before: options.before,
    after: options.after,
    created_at: sql`${options.at}`,
    proposal_id: sql`${actor.proposal_id}`,
    state: options.written && of?.table === options.table ? of.state : sql`null`,
  };
  // In the table's column order, which is the order drizzle lists the insert's columns in.
  const ordered = Object.values(getTableColumns(recordChanges)).map(
    (column) => values[column.name as keyof typeof values],
  );
  return ctx.db
    .insert(recordChanges)
    .select(sql`select ${sql.join(ordered, sql`, `)} from ${options.table} where ${options.where}`);
}

// ---- listChanges ------------------------------------------------------------------------------------------

/** An instant: an ISO 8601 time or a date (midnight UTC), compared as the stored `toISOString()` text. */
export const instantSchema = z
  .string()
  .trim()
  .refine((value) => /^\d{4}-\d{2}-\d{2}([T ].*)?$/.test(value) && !Number.isNaN(Date.parse(value)), {
    message: 'Expected an ISO 8601 time or date, e.g. 2026-11-01 or 2026-11-01T09:30:00Z',
  })
  .transform((value) => new Date(Date.parse(value)).toISOString());

const jsonObject = (what: string) => z.record(z.string(), z.unknown()).nullable().describe(what);

export const changeSchema = z
  .object({
    id: z.string().describe('Id of the history entry (`chg_...`).'),
    organization_id: z.string().describe('Organization of the record (`org_...`).'),
    kind: z.string().describe('Kind of record, e.g. risk, vendor, measure.'),
    record_id: z.string().describe('Id of the record changed; it may since have been deleted.'),
    action: z
      .enum(CHANGE_ACTIONS)
      .describe(
        `What happened: ${CHANGE_ACTIONS.join(', ')} (link/unlink: a measure linked to or unlinked from a risk).`,
      ),
    surface: z
      .enum(CHANGE_SURFACES)
      .describe(
        'Where the change came from: mcp (an AI client over MCP), direct (HTTP call), web (the web interface), cli (operator CLI), import (a file imported; call_id names the import), link (a person without an account, through a public signed link; person_id says who).',
      ),
    user_id: z
      .string()
      .nullable()
      .describe('The user who made it (`usr_...`); for API calls the token holder; null for surface link.'),
    person_id: z
      .string()
      .nullable()
      .describe('For surface link: the person of the register (`per_...`) who acted; otherwise null.'),
    person_name: z.string().nullable().describe("That person's full name, null if none or gone."),
    user_email: z.string().nullable().describe("That user's email, null if the account is gone."),
    token_id: z
      .string()
      .nullable()
      .describe(
        'The API token or connected client used (`tok_...`); null for changes made in the web interface or by the operator CLI.',
      ),
    token_name: z.string().nullable().describe("That token's name, null if none or gone."),
    call_id: z
      .string()
      .nullable()
      .describe('The tool call that made it (`cal_...`), as on the activity log.'),
    tool: z.string().describe('The tool that made it, e.g. updateRisk.'),
    before: jsonObject(
      'Values before the change of the fields it changed (the whole record for a delete); null for an add.',
    ),
    after: jsonObject(
      'Values after the change of the fields it changed (the whole record for an add); null for a delete.',
    ),
    created_at: timestampSchema.describe('When it happened (ISO 8601).'),
    proposal_id: z
      .string()
      .nullable()
      .describe(
        'The proposal (`prp_...`) this change applied; user_id then is who approved it. Null: direct.',
      ),
    proposed_by_token_id: z.string().nullable().describe('The token that proposed it, if a proposal.'),
    proposed_by_client: z.string().nullable().describe('The OAuth client that proposed it, if any.'),
  })
  .describe('One change of one record.');
/** The list tool's name, which its cursors carry. */
const LIST_CHANGES = 'listChanges';

RECORD_SCHEMAS.set(changeSchema, { label: 'change', spelledOutIn: LIST_CHANGES });

export type ChangeRow = z.output<typeof changeSchema>;

const createdAt: OrderField = { column: recordChanges.created_at };

/** The columns of a change answered: all but `state`, which only reads as of a time use. */
const { state: _state, ...shownColumns } = getTableColumns(recordChanges);

/** listChanges for the given register kinds (the tool map passes its own). */
export function listChangesTool(kinds: readonly [string, ...string[]]): Tool {
  return defineTool({
    name: LIST_CHANGES,
    title: 'List record changes (history)',
    description: [
      "The change history of an organization's records, newest first: each add, update, delete, link and unlink, who made it (user, API token), through which surface, when, the fields before and after.",
      'Deleted records keep their history.',
    ].join(' '),
    scope: 'read',
    toolset: 'history',
    annotations: READ_ANNOTATIONS,
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
      filter: z
        .strictObject({
          record_id: z
            .string()
            .trim()
            .min(1)
            .max(100)
            .optional()
            .describe('Id of one record, any kind (`rsk_...`).'),
          kind: z
            .preprocess(
              (value) =>
                typeof value === 'string'
                  ? value
                      .trim()
                      .toLowerCase()
                      .replace(/[\s-]+/g, '_')
                  : value,
              z.enum(kinds),
            )
            .optional()
            .describe('Kind.'),
          action: caseInsensitiveEnum(['ADD', 'UPDATE', 'DELETE', 'LINK', 'UNLINK'])
            .transform((value) => value.toLowerCase() as ChangeAction)
            .optional()
            .describe('Action.'),
          token_id: idOf('tok', 'Token').optional().describe('Token (`tok_...`).'),
          user_id: idOf('usr', 'User').optional().describe('User (`usr_...`).'),
          surface: caseInsensitiveEnum(['MCP', 'DIRECT', 'WEB', 'CLI', 'IMPORT', 'LINK'])
            .transform((value) => value.toLowerCase() as (typeof CHANGE_SURFACES)[number])
            .optional()
            .describe('Surface.'),
          call_id: idOf('cal', 'Call').optional().describe('Call (`cal_...`).'),
          since: instantSchema
            .optional()
            .describe('From this time on (ISO 8601; a date is its midnight UTC).'),
          until: instantSchema
            .optional()
            .describe('Before this time (ISO 8601; a date is its midnight UTC).'),
        })
        .optional()
        .describe('All given must match.'),
      size: sizeSchema.optional().describe('Default 20.'),
      cursor: cursorSchema.optional().describe('From next_cursor.'),
    }),
    output: z.object({
      changes: z.array(changeSchema).describe('This page of changes, newest first.'),
      next_cursor: z
        .string()
        .nullable()
        .describe('Cursor of the next page, or null when this is the last page.'),
      total_count: z
        .number()
        .int()
        .nonnegative()
        .describe(
          `Number of changes matching the filter over all pages, counted when the first page was read (later pages repeat it) and at most ${TOTAL_COUNT_CAP}.`,
        ),
      total_count_capped: z
        .boolean()
        .describe(
          `True when more than ${TOTAL_COUNT_CAP} changes match: total_count then shows ${TOTAL_COUNT_CAP}. Narrow the filter (e.g. since/until) or page through them.`,
        ),
      page_shortened: pageShortenedSchema,
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      const filter = input.filter ?? {};
      const where = and(
        eq(recordChanges.organization_id, input.organization_id),
        filter.record_id !== undefined ? eq(recordChanges.record_id, filter.record_id) : undefined,
        filter.kind !== undefined ? eq(recordChanges.kind, filter.kind) : undefined,
        filter.action !== undefined ? eq(recordChanges.action, filter.action) : undefined,
        filter.token_id !== undefined ? eq(recordChanges.token_id, filter.token_id) : undefined,
        filter.user_id !== undefined ? eq(recordChanges.user_id, filter.user_id) : undefined,
        filter.surface !== undefined ? eq(recordChanges.surface, filter.surface) : undefined,
        filter.call_id !== undefined ? eq(recordChanges.call_id, filter.call_id) : undefined,
        filter.since !== undefined ? gte(recordChanges.created_at, filter.since) : undefined,
        filter.until !== undefined ? lt(recordChanges.created_at, filter.until) : undefined,
      );
      const size = input.size ?? PAGE_SIZE.default;
      const cursor = input.cursor ? decodeCursor(input.cursor, LIST_CHANGES, 'created_at', 'DESC') : null;
      const [range] = pageRanges(createdAt, recordChanges.id, 'DESC', cursor);
      // total_count: counted on the first page (at most TOTAL_COUNT_CAP + 1 matches read), then carried in the cursor.
      const fingerprint = filterFingerprint(input.organization_id, input.filter);
      const carried = carriedCount(cursor, fingerprint, TOTAL_COUNT_CAP);
      const pageQuery = ctx.db
        .select({
          ...shownColumns,
          user_email: users.email,
          token_name: apiTokens.name,
          person_name: people.full_name,
          proposed_by_token_id: proposals.proposed_by_token_id,
          proposed_by_client: proposals.proposed_by_client,
        })
        .from(recordChanges)
        .leftJoin(users, eq(users.id, recordChanges.user_id))
        .leftJoin(
          people,
          and(
            eq(people.id, recordChanges.person_id),
            eq(people.organization_id, recordChanges.organization_id),
          ),
        )
        .leftJoin(apiTokens, eq(apiTokens.id, recordChanges.token_id))
        .leftJoin(proposals, eq(proposals.id, recordChanges.proposal_id))
        .where(and(where, range?.where))
        .orderBy(...(range?.orderBy ?? []))
        .limit(size + 1);
      const countQuery = ctx.db.select({ total: count() }).from(
        ctx.db
          .select({ one: sql`1` })
          .from(recordChanges)
          .where(where)
          .limit(TOTAL_COUNT_CAP + 1)
          .as('matches'),
      );
      const [rows, totals] = carried ? [await pageQuery, null] : await ctx.db.batch([pageQuery, countQuery]);
      const { total: total_count, capped: total_count_capped } =
        carried ?? cappedCount(Number(totals?.[0]?.total ?? 0), TOTAL_COUNT_CAP);
      const kept = itemsWithinBudget(rows.slice(0, size));
      const shortened = kept < Math.min(rows.length, size);
      const last = rows.length > size || shortened ? rows[kept - 1] : undefined;
      const payload = (row: Record<string, unknown>): CursorPayload => ({
        l: LIST_CHANGES,
        f: 'created_at',
        d: 'DESC',
        v: cursorValue(createdAt, row),
        i: String(row.id),
        t: total_count,
        c: total_count_capped,
        h: fingerprint,
      });
      return {
        changes: rows.slice(0, kept),
        next_cursor: last ? encodeCursor(payload(last)) : null,
        total_count,
        total_count_capped,
        ...(shortened ? { page_shortened: true as const } : {}),
      };
    },
  });
}
