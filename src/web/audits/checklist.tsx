// An audit page's checklist: each requirement of its scope with its result, notes and the nonconformity it raised
// (listAuditChecklist); members who may write record a result per requirement on its own page (src/web/audits/pages.tsx,
// recordAuditChecklistResult).
import type { Context } from 'hono';
import { AUDIT_CHECKLIST } from '../../tools/index.ts';
import { mayWrite } from '../access.ts';
import type { Membership, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { FileKindImportForm, fileKindExportPath } from '../file-kind-exports.tsx';
import { valueLabel } from '../labels.ts';
import { Badge, Notice } from '../layout.tsx';
import { registerPageByKind } from '../register-pages.ts';
import type { WebCalls } from '../tool-calls.ts';

interface ChecklistItem {
  requirement_id: string;
  reference: string;
  title: string;
  result: string;
  recorded: boolean;
  notes: string | null;
  nonconformity_id: string | null;
  nonconformity_reference: string | null;
  nonconformity_grade: string | null;
}

const TONE: Record<string, 'ok' | 'warn' | 'bad' | undefined> = {
  CONFORMING: 'ok',
  NONCONFORMITY: 'bad',
  OBSERVATION: 'warn',
  OPPORTUNITY_FOR_IMPROVEMENT: 'warn',
};

/** How many requirements of the scope the page shows; the API pages through the rest. */
const SHOWN = 200;

export async function auditChecklistOf(
  c: Context<WebEnv>,
  calls: WebCalls,
  membership: Membership,
  id: string,
) {
  const outcome = await calls.read(AUDIT_CHECKLIST.list, { audit_id: id, size: SHOWN });
  if (!outcome.ok)
    return (
      <section aria-labelledby="checklist">
        <h2 id="checklist">Checklist</h2>
        <Notice kind="error">{outcome.error.message}</Notice>
      </section>
    );
  const items = outcome.result.items as ChecklistItem[];
  const counts = outcome.result.counts as Record<string, number>;
  const base = `/orgs/${membership.organizationId}`;
  const requirements = registerPageByKind('requirement');
  const findings = registerPageByKind('nonconformity');
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const writer = mayWrite(membership);
  return (
    <section aria-labelledby="checklist">
      <h2 id="checklist">Checklist</h2>
      {total > 0 && (
        <p class="small">
          {Object.entries(counts)
            .filter(([, n]) => n > 0)
            .map(([result, n]) => `${n} ${valueLabel(result).toLowerCase()}`)
            .join(', ')}
          {total > items.length && ` (the first ${items.length} of ${total} shown)`}
        </p>
      )}
      {total > 0 && (
        <p class="small">
          Download the results:{' '}
          <a
            href={`${fileKindExportPath('audit_checklist_result', membership.organizationId, id)}.csv`}
            download
          >
            CSV
          </a>{' '}
          ·{' '}
          <a
            href={`${fileKindExportPath('audit_checklist_result', membership.organizationId, id)}.json`}
            download
          >
            JSON
          </a>{' '}
          (the CSV imports back: importRecords kind audit_checklist_result, or the CLI's import --audit)
        </p>
      )}
      {total > 0 && writer && (
        <FileKindImportForm
          action={`${base}/audits/${id}/checklist/import`}
          csrfToken={c.get('session').csrfToken}
          label="Import results from a CSV or XLSX file (all rows or none):"
        />
      )}
      <DataTable
        items={items}
        empty="No requirement in scope: give the audit its requirements (Requirements in scope) to keep a checklist."
        caption={`Checklist of ${total} requirements in scope`}
        columns={[
          {
            header: 'Requirement',
            cell: (item) =>
              requirements ? (
                <a href={`${base}/${requirements.slug}/${item.requirement_id}`}>
                  {item.reference} {item.title}
                </a>
              ) : (
                `${item.reference} ${item.title}`
              ),
          },
          {
            header: 'Result',
            cell: (item) => <Badge tone={TONE[item.result]}>{valueLabel(item.result)}</Badge>,
          },
          { header: 'Notes', class: 'small', cell: (item) => item.notes ?? '' },
          {
            header: 'Finding',
            cell: (item) =>
              item.nonconformity_id && findings ? (
                <a href={`${base}/${findings.slug}/${item.nonconformity_id}`}>
                  {item.nonconformity_reference}
                  {item.nonconformity_grade ? ` (${valueLabel(item.nonconformity_grade)})` : ''}
                </a>
              ) : (
                ''
              ),
          },
          ...(writer
            ? [
                {
                  header: 'Record',
                  hiddenHeader: true,
                  cell: (item: ChecklistItem) => (
                    <a href={`${base}/audits/${id}/checklist/${item.requirement_id}`}>
                      Record<span class="visually-hidden"> the result of {item.reference}</span>
                    </a>
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}
