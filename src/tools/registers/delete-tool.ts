// A register's delete tool: refused while required references point at the record; otherwise the record goes, the
// fields pointing at it are cleared and the links to it removed, each change with its own history row.
import { and, count, eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { changeAfterWrite } from '../changes.ts';
import { requirePersonInWeb } from '../decisions.ts';
import { article } from '../id-kinds.ts';
import { readSettings } from '../settings.ts';
import { CHANGED_A_ROW, DELETE_ANNOTATIONS, defineTool, type Tool, type ToolContext } from '../types.ts';
import { recordPath } from './naming.ts';
import type { RegisterRecords } from './records.ts';
import {
  cascadeChanges,
  cascadeDeletes,
  clearPointing,
  type DeleteEffects,
  type Reference,
} from './references.ts';
import { idInput } from './schemas.ts';
import { type RegisterKind, toolsetOf } from './spec.ts';

/** The delete tool's description: what happens, from the delete effects (the web's confirmation reads the same). */
function deleteDescription(
  label: string,
  effects: DeleteEffects,
  pluralOf: (kind: string) => string,
  hint = '',
): string {
  const blocking = [...new Set(effects.blockedBy.map((field) => pluralOf(field.kind)))];
  const deleted = [...new Set(effects.deletes.map((field) => pluralOf(field.kind)))];
  return [
    `Delete ${article(label)} ${label}${hint ? ` (${hint})` : ''}; cannot be undone.`,
    deleted.length > 0 ? `Its ${deleted.join(', ')} are deleted with it.` : '',
    effects.clears.length > 0 ? 'Fields pointing at it are cleared.' : '',
    blocking.length > 0 ? `Refused (conflict) while ${blocking.join(', ')} still point at it.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function buildDeleteTool(
  records: RegisterRecords,
  references: readonly Reference[],
  effects: DeleteEffects,
  pluralOf: (kind: string) => string,
  referencesOf: (kind: RegisterKind) => readonly Reference[],
): Tool {
  const { spec, table } = records;
  const name = `delete${spec.noun}`;
  const restricting = references.filter((reference) => reference.onDelete === 'restrict');
  return defineTool({
    name,
    title: `Delete ${spec.label}`,
    description: deleteDescription(spec.label, effects, pluralOf, spec.hints?.delete),
    scope: 'write',
    annotations: DELETE_ANNOTATIONS,
    toolset: toolsetOf(spec),
    input: idInput(spec),
    output: z
      .object({ id: z.string().describe('Id of the deleted record.'), deleted: z.literal(true) })
      .describe('{id, deleted: true}'),
    async run(ctx, input) {
      const current = await records.load(ctx, input.id, 'write');
      const organizationId = String(current.organization_id);
      // Applying an approved proposal: only the version it was proposed against is deleted.
      const base = ctx.proposalBase;
      const refuseIfChanged = (now: unknown) => {
        if (base !== undefined && String(now) !== base)
          throw new AppError(
            'conflict',
            `The ${spec.label} ${input.id} changed since it was proposed (version of ${base}, now ${String(now)}): propose again from its current state.`,
          );
      };
      refuseIfChanged(current.updated_at);
      requirePersonInWeb(
        ctx,
        await readSettings(ctx.db, organizationId),
        `deleting ${article(spec.label)} ${spec.label}`,
        `${recordPath(organizationId, spec, input.id)}/delete`,
      );
      const refuseIfReferenced = async () => {
        for (const reference of restricting) {
          const [row] = await ctx.db
            .select({ n: count() })
            .from(reference.table)
            .where(eq(reference.column, input.id));
          if (row && row.n > 0) {
            throw new AppError(
              'conflict',
              `Cannot delete this ${spec.label}: ${reference.label} still point at it (${row.n}). Delete or change those first.`,
            );
          }
        }
      };
      await refuseIfReferenced();
      // The same checks inside the statements: a reference added meanwhile keeps the record, and the clean-up of
      // the records that pointed at it runs only once it is really gone.
      const unreferenced = restricting.map(
        (reference) =>
          sql`not exists (select 1 from ${reference.table} where ${reference.column} = ${input.id})`,
      );
      const gone = sql`not exists (select 1 from ${table} where ${table.id} = ${input.id})`;
      const now = ctx.now().toISOString();
      const [deleted] = await ctx.db.batch([
        ctx.db
          .delete(table)
          .where(
            and(
              eq(table.id, input.id),
              base === undefined ? undefined : eq(table.updated_at, base),
              ...unreferenced,
            ),
          )
          .returning({ id: table.id }),
        changeAfterWrite(ctx, {
          tool: name,
          kind: spec.kind,
          recordId: input.id,
          organizationId: String(current.organization_id),
          action: 'delete',
          before: records.historyValues(current),
          after: null,
          at: now,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        // Before the clean-up: the records it changes get their own history rows.
        ...references.flatMap((reference) => cascadeChanges(ctx, name, reference, input.id, gone, now)),
        ...cleanUp(ctx, references, input.id, gone, now),
        ...references.flatMap((reference) =>
          cascadeDeletes(ctx, name, reference, input.id, gone, now, referencesOf),
        ),
        ...(spec.afterDelete?.(ctx, input.id, gone) ?? []),
      ]);
      if ((deleted as unknown[]).length === 0) {
        await refuseIfReferenced();
        const [still] = await ctx.db
          .select({ updated_at: table.updated_at })
          .from(table)
          .where(eq(table.id, input.id));
        if (still) refuseIfChanged(still.updated_at);
        throw notFound(records.title);
      }
      return { id: input.id, deleted: true as const };
    },
    async propose(ctx, input) {
      const current = await records.load(ctx, input.id, 'write');
      return {
        organizationId: String(current.organization_id),
        kind: spec.kind,
        action: 'delete' as const,
        recordId: input.id,
        baseUpdatedAt: String(current.updated_at),
        before: records.historyValues(current),
        after: null,
      };
    },
    async answerAgain(_ctx, input) {
      return { id: input.id, deleted: true as const };
    },
  });
}

/** Once the record is gone: its link rows removed, the optional fields pointing at it cleared. */
function cleanUp(
  ctx: ToolContext,
  references: readonly Reference[],
  deletedId: string,
  gone: SQL,
  now: string,
): BatchItem<'sqlite'>[] {
  return references
    .filter((reference) => reference.onDelete === 'delete_rows' || reference.onDelete === 'set_null')
    .map((reference) => {
      const where = and(eq(reference.column, deletedId), gone) as SQL;
      if (reference.onDelete === 'delete_rows') return ctx.db.delete(reference.table).where(where);
      // Clearing the field changes those records: their updated_at moves, so stale updates of them conflict.
      return clearPointing(ctx, reference, where, now);
    });
}
