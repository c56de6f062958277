// A vendor page's questionnaires: each one sent to the vendor, with its contact, due date, status and score (read by
// listVendorQuestionnaires), each linking to its answers; for members who may write, the form that sends one
// (src/web/vendors/questionnaire-pages.tsx).
import { VENDOR_QUESTIONNAIRES } from '../../tools/index.ts';
import { mayWrite } from '../access.ts';
import { DataTable } from '../data-table.tsx';
import { FileKindImportForm, fileKindExportPath } from '../file-kind-exports.tsx';
import { valueLabel } from '../labels.ts';
import { Badge } from '../layout.tsx';
import type { RecordSectionOf } from '../register-pages.ts';
import {
  holdsStarterTemplate,
  SendQuestionnaireForm,
  StarterTemplateButton,
  templatesOf,
} from './questionnaire-pages.tsx';

interface QuestionnaireRow {
  id: string;
  title: string;
  contact_name: string;
  contact_email: string;
  due_date: string;
  status: 'PENDING' | 'ANSWERED' | 'EXPIRED';
  answered_at: string | null;
  score: number | null;
  created_at: string;
}

const TONE = { PENDING: 'warn', ANSWERED: 'ok', EXPIRED: 'bad' } as const;
/** The questionnaires shown on a vendor's page, newest last (the list's id order); more are read by the tools. */
const SHOWN = 50;

export function VendorQuestionnaires(props: {
  items: QuestionnaireRow[];
  more: boolean;
  /** The vendor page's address; each questionnaire's page is under it. */
  base: string;
  children?: unknown;
}) {
  return (
    <section aria-labelledby="questionnaires">
      <h2 id="questionnaires">Security questionnaires</h2>
      <DataTable
        items={props.items}
        empty="None sent yet. Sending one gives a link to mail to the vendor's contact."
        caption={
          props.more
            ? `The first ${SHOWN} questionnaires sent to this vendor; listVendorQuestionnaires reads them all.`
            : 'Questionnaires sent to this vendor; getQuestionnaireAnswers reads the answers.'
        }
        columns={[
          {
            header: 'Questionnaire',
            cell: (item) => <a href={`${props.base}/questionnaires/${item.id}`}>{item.title}</a>,
          },
          {
            header: 'Contact',
            cell: (item) => (
              <>
                {item.contact_name}
                <br />
                <span class="small muted">{item.contact_email}</span>
              </>
            ),
          },
          { header: 'Sent', cell: (item) => item.created_at.slice(0, 10) },
          { header: 'Due', cell: (item) => item.due_date },
          {
            header: 'Status',
            cell: (item) => (
              <>
                <Badge tone={TONE[item.status]}>{valueLabel(item.status)}</Badge>
                {item.answered_at && <span class="small muted"> {item.answered_at.slice(0, 10)}</span>}
              </>
            ),
          },
          { header: 'Score', class: 'num', cell: (item) => (item.score === null ? '' : String(item.score)) },
        ]}
      />
      {props.children as never}
    </section>
  );
}

/** The section of a vendor's page, or nothing when the list cannot be read. */
export const vendorQuestionnairesOf: RecordSectionOf = async (c, calls, membership, id) => {
  const outcome = await calls.read(VENDOR_QUESTIONNAIRES.list, {
    organization_id: membership.organizationId,
    filter: { vendor_id: id },
    size: SHOWN,
  });
  if (!outcome.ok) return undefined;
  const base = `/orgs/${membership.organizationId}/vendors/${id}`;
  const templates = mayWrite(membership) ? await templatesOf(calls, membership.organizationId) : [];
  const csrfToken = c.get('session').csrfToken;
  return (
    <VendorQuestionnaires
      items={outcome.result.vendor_questionnaires as QuestionnaireRow[]}
      more={outcome.result.next_cursor !== null}
      base={base}
    >
      {mayWrite(membership) && (
        <>
          <SendQuestionnaireForm
            action={`${base}/questionnaires`}
            csrfToken={csrfToken}
            templates={templates}
          />
          {templates.length > 0 && (
            <p class="small">
              Download a template (its questions, order, weights and topics; the CSV imports back with
              importRecords kind questionnaire_template):{' '}
              {templates.map((template, at) => {
                const path = fileKindExportPath(
                  'questionnaire_template',
                  membership.organizationId,
                  String(template.id),
                );
                return (
                  <>
                    {at > 0 && '; '}
                    <span dir="auto">{String(template.name)}</span> (
                    <a href={`${path}.csv`} download>
                      CSV
                    </a>
                    ,{' '}
                    <a href={`${path}.json`} download>
                      JSON
                    </a>
                    )
                  </>
                );
              })}
            </p>
          )}
          <FileKindImportForm
            action={`/orgs/${membership.organizationId}/questionnaire-templates/import`}
            csrfToken={csrfToken}
            label="Import a questionnaire template from a CSV or XLSX file (a row per question):"
            back={base}
          />
          {!holdsStarterTemplate(templates) && (
            <StarterTemplateButton action={`${base}/questionnaire-templates/starter`} csrfToken={csrfToken} />
          )}
        </>
      )}
    </VendorQuestionnaires>
  );
};
