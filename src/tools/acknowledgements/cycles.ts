// Acknowledgement cycles: a published version asks again who acknowledged an earlier one (the organization's
// reacknowledge_on setting), and an acknowledgement more than a year old comes due again (the yearly cycle).
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import {
  acknowledgementRequests,
  acknowledgements,
  documentRequirements,
  evidence,
  evidenceRecords,
  organizations,
  people,
} from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import { changeWhere, type HistoryWriter } from '../changes.ts';
import { addDays } from '../overdue.ts';
import type { ToolContext } from '../types.ts';

/** An acknowledgement older than this many days is due again (the yearly cycle). */
export const ACKNOWLEDGEMENT_VALID_DAYS = 365;

/**
 * SQL over the acknowledgement row `a` (an alias of acknowledgements): given, and no newer row of the same person and
 * document since (pending, or acknowledged later). The row that stands for the person's acknowledgement of the document.
 */
export function latestAcknowledgement(a: string): SQL {
  const row = sql.raw(a);
  return sql`${row}.acknowledged_at is not null and not exists (select 1 from ${acknowledgements} later where later.document_id = ${row}.document_id and later.person_id = ${row}.person_id and later.id <> ${row}.id and (later.acknowledged_at is null or later.acknowledged_at > ${row}.acknowledged_at))`;
}

/** SQL: the day the acknowledgement row `a` comes due again, a year after it was given (YYYY-MM-DD). */
export function acknowledgementDueAgain(a: string): SQL {
  return sql`date(${sql.raw(a)}.acknowledged_at, ${`+${ACKNOWLEDGEMENT_VALID_DAYS} days`})`;
}

/**
 * The statements that, when version `version` of a document is published, ask again the people who acknowledged an
 * earlier version of it (and are still in the register, and have no row on this version): one request (audience
 * PEOPLE, no due date, no links: sendAcknowledgementReminders mails them) with a pending row each and a history row on
 * the document. They write only where `landed` holds and the organization's reacknowledge_on is EVERY_VERSION, or
 * MAJOR_ONLY with a major version; nothing when no one acknowledged before. Run in the batch of the publication.
 */
export function reacknowledgeOnPublish(
  ctx: ToolContext,
  document: { id: string; organizationId: string; version: number; major: boolean },
  landed: SQL,
): BatchItem<'sqlite'>[] {
  const requestId = newId('akr');
  const at = ctx.now().toISOString();
  const setting = sql`(select coalesce(json_extract(${organizations.settings}, '$.reacknowledge_on'), 'NEVER') from ${organizations} where ${organizations.id} = ${document.organizationId})`;
  const wanted = document.major
    ? sql`${setting} in ('EVERY_VERSION', 'MAJOR_ONLY')`
    : sql`${setting} = 'EVERY_VERSION'`;
  const earlier = sql`select distinct a.person_id from ${acknowledgements} a join ${people} p on p.id = a.person_id where a.organization_id = ${document.organizationId} and a.document_id = ${document.id} and a.version_number < ${document.version} and a.acknowledged_at is not null and not exists (select 1 from ${acknowledgements} b where b.document_id = ${document.id} and b.version_number = ${document.version} and b.person_id = a.person_id)`;
  const requestLanded = sql`exists (select 1 from ${acknowledgementRequests} r where r.id = ${requestId})`;
  return [
    ctx.db.run(
      sql`insert into ${acknowledgementRequests} (id, organization_id, document_id, version_number, audience, due_date, requested_by_user_id, created_at) select ${requestId}, ${document.organizationId}, ${document.id}, ${document.version}, 'PEOPLE', null, ${ctx.principal.userId}, ${at} where ${landed} and ${wanted} and exists (${earlier})`,
    ),
    // Ids of 24 hex digits: within the id alphabet (0-9, a-f), made in SQL as the rows are.
    ctx.db.run(
      sql`insert into ${acknowledgements} (id, organization_id, request_id, document_id, version_number, person_id, created_at) select 'ack_' || lower(hex(randomblob(12))), ${document.organizationId}, ${requestId}, ${document.id}, ${document.version}, e.person_id, ${at} from (${earlier}) e where ${requestLanded}`,
    ),
    changeWhere(
      ctx,
      {
        tool: 'updateDocument',
        kind: 'document',
        recordId: document.id,
        organizationId: document.organizationId,
        action: 'update',
        before: { acknowledgement_request_id: null },
        after: {
          acknowledgement_request_id: requestId,
          version: document.version,
          audience: 'PEOPLE',
          reacknowledge: true,
        },
        at,
      },
      requestLanded,
    ),
  ];
}

/**
 * The statements that, run in the batch that acknowledges the caller's pending rows of a document version (after that
 * update), record each request those rows belong to as evidence once no one it asked is pending any more: an evidence
 * item "Acknowledgements complete: <title> v<N>" (collected today, valid a year: the yearly cycle), linked to every
 * requirement the document covers (its requirement_ids), recorded as the request's evidence_id, with its history row.
 * A request is recorded once (evidence_id set); one still waiting for someone writes nothing.
 */
export async function completionEvidence(
  ctx: ToolContext | HistoryWriter,
  of: {
    documentId: string;
    organizationId: string;
    title: string;
    version: number;
    personId: string;
    at: string;
    /** Only this acknowledgement's request (a public link acknowledges its own row, nothing else). */
    acknowledgementId?: string;
  },
): Promise<BatchItem<'sqlite'>[]> {
  const requests = await ctx.db
    .selectDistinct({ id: acknowledgements.request_id })
    .from(acknowledgements)
    .where(
      and(
        eq(acknowledgements.organization_id, of.organizationId),
        eq(acknowledgements.document_id, of.documentId),
        eq(acknowledgements.version_number, of.version),
        eq(acknowledgements.person_id, of.personId),
        isNull(acknowledgements.acknowledged_at),
        of.acknowledgementId === undefined ? undefined : eq(acknowledgements.id, of.acknowledgementId),
      ),
    );
  const { at } = of;
  const collected = at.slice(0, 10);
  const validUntil = addDays(collected, ACKNOWLEDGEMENT_VALID_DAYS);
  const title = `Acknowledgements complete: ${of.title} v${of.version}`.slice(0, 200);
  return requests.flatMap(({ id: requestId }) => {
    const evidenceId = newId('evd');
    const complete = sql`not exists (select 1 from ${acknowledgements} p where p.request_id = ${requestId} and p.acknowledged_at is null) and exists (select 1 from ${acknowledgementRequests} r where r.id = ${requestId} and r.evidence_id is null)`;
    const written = sql`exists (select 1 from ${evidence} w where w.id = ${evidenceId})`;
    const description = sql`'Every person asked by acknowledgement request ' || ${requestId} || ' (' || (select count(*) from ${acknowledgements} c where c.request_id = ${requestId}) || ${`) acknowledged version ${of.version} of document ${of.documentId}; listAcknowledgements with filter.request_id lists who, when and how.`}`;
    return [
      ctx.db.run(
        sql`insert into ${evidence} (id, organization_id, title, description, kind, collected_on, valid_until, created_at, updated_at) select ${evidenceId}, ${of.organizationId}, ${title}, ${description}, 'LINK', ${collected}, ${validUntil}, ${at}, ${at} where ${complete}`,
      ),
      ctx.db
        .update(acknowledgementRequests)
        .set({ evidence_id: evidenceId })
        .where(
          and(
            eq(acknowledgementRequests.id, requestId),
            isNull(acknowledgementRequests.evidence_id),
            written,
          ),
        ),
      ctx.db.run(
        sql`insert into ${evidenceRecords} (evidence_id, record_id, organization_id) select ${evidenceId}, ${documentRequirements.requirement_id}, ${of.organizationId} from ${documentRequirements} where ${documentRequirements.document_id} = ${of.documentId} and ${written}`,
      ),
      changeWhere(
        ctx,
        {
          tool: 'acknowledgeDocument',
          kind: 'evidence',
          recordId: evidenceId,
          organizationId: of.organizationId,
          action: 'add',
          before: null,
          after: {
            title,
            kind: 'LINK',
            collected_on: collected,
            valid_until: validUntil,
            acknowledgement_request_id: requestId,
          },
          at,
        },
        written,
      ),
    ];
  });
}
