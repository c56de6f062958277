// A framework's page beyond its fields: coverage per section, and its requirement tree with applicability and
// justification editable in place (measures are mapped on each requirement's edit form, with a picker).

import type { Context } from 'hono';
import { mayWrite } from '../access.ts';
import type { Membership, WebEnv } from '../context.ts';
import { Badge, CsrfField, Pager } from '../layout.tsx';
import type { WebCalls } from '../tool-calls.ts';
import {
  type CoverageResult,
  coverageOf,
  depthsOf,
  percent,
  READINESS_LABELS,
  READINESS_TONES,
  type SoaPage,
  STATUS_LABELS,
  STATUS_TONES,
  soaPage,
} from './data.ts';

function CoverageTable({ coverage }: { coverage: CoverageResult }) {
  const rows = [
    ...coverage.sections.map((section) => ({
      label: section.reference ? `${section.reference} ${section.title ?? ''}` : 'Outside sections',
      coverage: section.coverage,
    })),
    { label: 'All requirements', coverage: coverage.coverage },
  ];
  return (
    <div class="table-wrap">
      <table class="coverage">
        <caption>
          Requirements by implementation status, per section. Implemented share: implemented / applicable.
        </caption>
        <thead>
          <tr>
            <th scope="col">Section</th>
            <th scope="col" class="num">
              Applicable
            </th>
            {['IMPLEMENTED', 'PARTIALLY_IMPLEMENTED', 'PLANNED', 'NOT_COVERED'].map((status) => (
              <th scope="col" class="num">
                {STATUS_LABELS[status]}
              </th>
            ))}
            <th scope="col" class="num">
              Excluded
            </th>
            <th scope="col" class="num">
              Implemented
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr class={index === rows.length - 1 ? 'total' : undefined}>
              <th scope="row">{row.label}</th>
              <td class="num">{row.coverage.applicable}</td>
              {['IMPLEMENTED', 'PARTIALLY_IMPLEMENTED', 'PLANNED', 'NOT_COVERED'].map((status) => (
                <td class="num">{row.coverage.by_status[status] ?? 0}</td>
              ))}
              <td class="num">{row.coverage.excluded}</td>
              <td class="num">{percent(row.coverage.implemented_share)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ApplicabilityForm(props: {
  organizationId: string;
  row: SoaPage['requirements'][number];
  back: string;
  csrfToken: string;
}) {
  const { row } = props;
  const id = `applicability-${row.id}`;
  return (
    <form
      method="post"
      action={`/orgs/${props.organizationId}/requirements/${row.id}/applicability`}
      class="applicability-form"
    >
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="expected_updated_at" value={row.updated_at} />
      <input type="hidden" name="back" value={props.back} />
      <label class="visually-hidden" for={`${id}-select`}>
        Applicability of {row.reference}
      </label>
      <select id={`${id}-select`} name="applicability">
        <option value="APPLICABLE" selected={row.applicability === 'APPLICABLE'}>
          Applicable
        </option>
        <option value="EXCLUDED" selected={row.applicability === 'EXCLUDED'}>
          Excluded
        </option>
      </select>
      <label class="visually-hidden" for={`${id}-justification`}>
        Justification of {row.reference}
      </label>
      <textarea
        id={`${id}-justification`}
        name="justification"
        rows={2}
        data-limit={5000}
        placeholder="Justification"
      >
        {row.justification ?? ''}
      </textarea>
      <button type="submit" class="button small">
        Save
      </button>
    </form>
  );
}

/** Deeper rows are indented as much as this (the stylesheet has a class per depth; inline styles are refused). */
const MAX_DEPTH = 5;

/** The framework's coverage and one page of its requirement tree (the statement's rows, in document order). */
export function FrameworkDetails(props: {
  membership: Membership;
  frameworkId: string;
  coverage: CoverageResult | null;
  page: SoaPage | null;
  /** This page's URL with its tree cursor, to come back to after an edit. */
  here: string;
  /** The tree's first page (none: this is it) and next page. */
  firstHref: string | null;
  nextHref: string | null;
  csrfToken: string;
}) {
  const { membership, frameworkId, page } = props;
  const org = membership.organizationId;
  const base = `/orgs/${org}/frameworks/${frameworkId}`;
  const writer = mayWrite(membership);
  const depths = depthsOf(page?.requirements ?? []);
  return (
    <>
      <h2 id="coverage">Coverage</h2>
      <p class="actions-row small">
        <a href={`${base}/soa`}>Statement of applicability (printable)</a>
        <a href={`${base}/soa.csv`} download>
          Export CSV
        </a>
        <a href={`${base}/soa.json`} download>
          Export JSON
        </a>
        <a href={`/orgs/${org}/requirements?framework_id=${frameworkId}&implementation_status=NOT_COVERED`}>
          Gaps (not covered)
        </a>
      </p>
      {props.coverage ? <CoverageTable coverage={props.coverage} /> : <p class="empty">No coverage yet.</p>}
      {props.coverage && (
        <p class="readiness-line">
          Evidenced: {props.coverage.readiness.ready} of {props.coverage.coverage.applicable} applicable
          requirements ready ({percent(props.coverage.readiness.ready_share)});{' '}
          <a
            href={`/orgs/${org}/requirements?framework_id=${frameworkId}&implementation_status=IMPLEMENTED&readiness=NOT_READY`}
          >
            {props.coverage.readiness.implemented_not_ready} implemented but not ready
          </a>
        </p>
      )}
      <h2 id="requirements">Requirements</h2>
      {!page || page.requirements.length === 0 ? (
        <p class="empty">
          No requirements yet. Add them one by one from the requirements register, or import a catalog (OSCAL
          or CSV) with importFrameworkCatalog or <code>compliance-mcp framework import</code>.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="requirement-tree">
            <caption>
              {page.requirements.length} of{' '}
              {page.total_count_capped ? `more than ${page.total_count}` : page.total_count} requirements and
              sections, in document order.
            </caption>
            <thead>
              <tr>
                <th scope="col">Requirement</th>
                <th scope="col">Status</th>
                <th scope="col">Readiness</th>
                <th scope="col">Measures</th>
                <th scope="col">Applicability and justification</th>
              </tr>
            </thead>
            <tbody>
              {page.requirements.map((row) => (
                <tr id={row.id} class={row.is_section ? 'section-row' : undefined}>
                  <th scope="row" class={`depth-${Math.min(depths.get(row.id) ?? 0, MAX_DEPTH)}`}>
                    <a href={`/orgs/${org}/requirements/${row.id}`}>
                      <span class="reference">{row.reference}</span> {row.title}
                    </a>
                  </th>
                  <td>
                    {row.implementation_status ? (
                      <Badge tone={STATUS_TONES[row.implementation_status]}>
                        {STATUS_LABELS[row.implementation_status] ?? row.implementation_status}
                      </Badge>
                    ) : (
                      <span class="muted">section</span>
                    )}
                  </td>
                  <td>
                    {row.is_section ? (
                      <span class="muted">—</span>
                    ) : (
                      <>
                        <Badge tone={READINESS_TONES[row.readiness]}>
                          {READINESS_LABELS[row.readiness] ?? row.readiness}
                        </Badge>
                        {row.readiness_reasons.map((reason) => (
                          <span class="small muted reason"> {reason.message}</span>
                        ))}
                      </>
                    )}
                  </td>
                  <td>
                    {row.measures.length === 0 ? (
                      <span class="muted">—</span>
                    ) : (
                      row.measures.map((measure, index) => (
                        <>
                          {index > 0 && ', '}
                          <a href={`/orgs/${org}/measures/${measure.id}`}>{measure.name}</a>
                          {measure.readiness === 'NOT_READY' && <span class="small muted"> (not ready)</span>}
                        </>
                      ))
                    )}
                    {writer && !row.is_section && (
                      <>
                        {' '}
                        <a class="small" href={`/orgs/${org}/requirements/${row.id}/edit`}>
                          map measures
                        </a>
                      </>
                    )}
                  </td>
                  <td>
                    {row.is_section ? (
                      <span class="muted">—</span>
                    ) : writer ? (
                      <ApplicabilityForm
                        organizationId={org}
                        row={row}
                        back={props.here}
                        csrfToken={props.csrfToken}
                      />
                    ) : (
                      <>
                        {row.applicability === 'EXCLUDED' ? 'Excluded' : 'Applicable'}
                        {row.justification && <span class="hint">{row.justification}</span>}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager first={props.firstHref} next={props.nextHref} />
    </>
  );
}

/** A framework's coverage and a page of its requirement tree (`?tree=` cursor), for its record page. */
export async function frameworkDetailsOf(
  c: Context<WebEnv>,
  calls: WebCalls,
  membership: Membership,
  id: string,
) {
  const cursor = c.req.query('tree') || undefined;
  const [coverage, page] = await Promise.all([coverageOf(calls, id), soaPage(calls, id, cursor)]);
  const base = `/orgs/${membership.organizationId}/frameworks/${id}`;
  const tree = page.ok ? (page.result as unknown as SoaPage) : null;
  return (
    <FrameworkDetails
      membership={membership}
      frameworkId={id}
      coverage={coverage.ok ? (coverage.result as unknown as CoverageResult) : null}
      page={tree}
      here={cursor ? `${base}?tree=${encodeURIComponent(cursor)}` : base}
      firstHref={cursor ? `${base}#requirements` : null}
      nextHref={
        tree?.next_cursor ? `${base}?tree=${encodeURIComponent(tree.next_cursor)}#requirements` : null
      }
      csrfToken={c.get('session').csrfToken}
    />
  );
}
