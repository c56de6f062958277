// A register's list tool: server-side filters, keyset pages in any sort order, total_count counted once per walk.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { PAGE_SIZE } from '../fields.ts';
import {
  type CursorPayload,
  carriedCount,
  cursorValue,
  type Direction,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  itemsWithinBudget,
  orderIndexName,
  pageRanges,
  pageShortenedSchema,
  TEXT_COUNT_CAP,
  TOTAL_COUNT_CAP,
} from '../pagination.ts';
import { type TextSearch, textSearch } from '../search.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from '../types.ts';
import { asOfNoteSchema } from './as-of.ts';
import { listPageAsOf } from './as-of-reads.ts';
import type { RegisterRecords } from './records.ts';
import { listInput } from './schemas.ts';
import { type FilterLead, orderFieldsOf, type Row, SPARSE_ID, toolsetOf } from './spec.ts';
import { indexedTextPage, type ListPage, type PageLead, walkedPage } from './text-pages.ts';

/** The most rows an exact value of spec.exactFirst leads a page with (one per framework, in practice). */
const EXACT_FIRST_LIMIT = 50;

export function buildListTool(records: RegisterRecords, record: z.ZodObject): Tool {
  const { spec, table } = records;
  const orderFields = orderFieldsOf(spec);
  const orderIndexes = Object.fromEntries(
    Object.entries(orderFields).map(([name, field]) => [name, orderIndexName(table, field.column)]),
  );
  const name = `list${spec.nounPlural}`;
  return defineTool({
    name,
    title: `List ${spec.labelPlural}`,
    description: [`List an organization's ${spec.labelPlural}. ${spec.about}`, spec.hints?.list ?? '']
      .filter(Boolean)
      .join(' '),
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: toolsetOf(spec),
    input: listInput(spec),
    output: z.object({
      [spec.listKey]: z.array(record).describe('This page.'),
      next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
      total_count: z
        .number()
        .int()
        .nonnegative()
        .describe(
          `Matches on all pages, counted on the first page, at most ${TOTAL_COUNT_CAP} (${TEXT_COUNT_CAP} with filter.query).`,
        ),
      total_count_capped: z.boolean().describe('True: more than total_count match.'),
      page_shortened: pageShortenedSchema,
      as_of: asOfNoteSchema.optional(),
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      await spec.beforeRead?.(ctx, input.organization_id);
      if (input.as_of !== undefined)
        return (await listPageAsOf(
          ctx,
          records,
          name,
          input as Parameters<typeof listPageAsOf>[3],
          input.as_of,
        )) as never;
      const conditions: (SQL | undefined)[] = [];
      const countConditions: (SQL | undefined)[] = [];
      let search: TextSearch | null = null;
      // The text may be a record's exact value of spec.exactFirst (a reference): those rows lead the first page and
      // every page's walk leaves them out, so they appear once.
      let exact: SQL | undefined;
      let notExact: SQL | undefined;
      let sparse: SQL | undefined;
      const leads: FilterLead[] = [];
      const filter = (input.filter ?? {}) as Row;
      for (const [filterName, value] of Object.entries(filter)) {
        if (value === undefined) continue;
        if (filterName === 'query') {
          search = textSearch(table, spec.search ?? [], String(value));
          if (spec.exactFirst) {
            exact = sql`lower(${spec.exactFirst}) = lower(${String(value)})`;
            notExact = sql`not (${exact})`;
            conditions.push(notExact);
            countConditions.push(notExact);
          }
          continue;
        }
        const filterSpec = spec.filters?.[filterName];
        const condition = filterSpec?.where(value, records.today(ctx), filter);
        conditions.push(condition);
        const lead = filterSpec?.lead?.(value, input.organization_id);
        if (lead) leads.push(lead);
        // A filter's own matches (FilterSpec.matches): the page may read them instead of walking; the count reads
        // them by id, as a link filter's count does.
        const matches = filterSpec?.matches?.(value, records.today(ctx), input.organization_id);
        if (matches && !sparse) sparse = matches;
        countConditions.push(
          filterSpec?.count
            ? filterSpec.count(value, records.today(ctx))
            : matches
              ? sql`${table.id} in (select ${sql.identifier(SPARSE_ID)} from (${matches}))`
              : condition,
        );
      }
      const orderArgument = input.order_by as { field: string; direction: Direction } | undefined;
      const fieldName = orderArgument?.field ?? 'created_at';
      const direction: Direction = orderArgument?.direction ?? 'DESC';
      const orderField = orderFields[fieldName];
      const orderIndex = orderIndexes[fieldName];
      if (!orderField || !orderIndex) throw new AppError('invalid_arguments', `Cannot sort by ${fieldName}.`);
      const cursor = input.cursor ? decodeCursor(input.cursor, name, fieldName, direction) : null;
      // A link filter whose links carry this sort field (FilterSpec.lead) reads the page from them, in order; when it
      // is the only filter, its links alone are counted.
      const lead = search ? undefined : leads.find((candidate) => candidate.order[fieldName]);
      const led: PageLead | undefined = lead && {
        ...lead,
        column: lead.order[fieldName] as NonNullable<(typeof lead.order)[string]>,
        alone: conditions.length === 1,
      };
      const fingerprint = filterFingerprint(input.organization_id, input.filter);
      const cap = search ? TEXT_COUNT_CAP : TOTAL_COUNT_CAP;
      const filters = and(...conditions);
      const filtered = and(eq(table.organization_id, input.organization_id), filters);
      const size = input.size ?? PAGE_SIZE.default;
      const leading =
        exact && !cursor
          ? await ctx.db
              .select(records.selection)
              .from(table)
              .where(
                and(
                  eq(table.organization_id, input.organization_id),
                  ...conditions.filter((condition) => condition !== notExact),
                  exact,
                ),
              )
              .orderBy(orderField.column, table.id)
              .limit(EXACT_FIRST_LIMIT)
          : [];
      const page: ListPage = {
        organizationId: input.organization_id,
        orderField,
        orderIndex,
        fieldName,
        direction,
        filtered,
        // The same conditions unless a filter has a count form of its own (FilterSpec.count).
        countFiltered: countConditions.every((condition, index) => condition === conditions[index])
          ? filtered
          : and(eq(table.organization_id, input.organization_id), ...countConditions),
        filters,
        size: Math.max(1, size - leading.length),
        sparse: led ? undefined : sparse,
        lead: led,
        ranges: pageRanges(orderField, table.id, direction, cursor),
        // total_count: counted on the first page (at most cap + 1 matches read), then carried in the cursor.
        carried: carriedCount(cursor, fingerprint, cap),
        cap,
        cursor,
      };
      const { rows, counted } = search?.index
        ? await indexedTextPage(ctx, records, page, { ...search, index: search.index })
        : await walkedPage(ctx, records, page, search?.rowTest);
      const { capped: total_count_capped } = counted;
      const total_count = counted.total + leading.length;
      const presented = [...leading, ...rows.slice(0, page.size)].map((row) => records.present(row, ctx));
      // The leading rows and one walked row are never cut: the cursor carries on after the last walked row shown.
      const kept = Math.max(itemsWithinBudget(presented), Math.min(presented.length, leading.length + 1));
      const shortened = kept < presented.length;
      const last = rows[kept - leading.length - 1];
      const payload = (row: Row): CursorPayload => ({
        l: name,
        f: fieldName,
        d: direction,
        v: cursorValue(orderField, row),
        i: String(row.id),
        t: total_count,
        c: total_count_capped,
        h: fingerprint,
      });
      return {
        // The page itself when whole: its JSON, written while measuring it, is the one answered.
        [spec.listKey]: shortened ? presented.slice(0, kept) : presented,
        next_cursor: (rows.length > page.size || shortened) && last ? encodeCursor(payload(last)) : null,
        total_count,
        total_count_capped,
        ...(shortened ? { page_shortened: true as const } : {}),
      };
    },
  });
}
