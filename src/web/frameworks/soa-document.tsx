// The statement of applicability as a document: one table per top-level section, print styles for A4 (the browser's
// "Save as PDF" makes the file an auditor asks for).
import type { Membership } from '../context.ts';
import { Layout, type Viewer } from '../layout.tsx';
import { type Coverage, type CoverageResult, percent, type SoaRow, STATUS_LABELS } from './data.ts';

/** Rows grouped under their top-level sections, in document order; rows before any section under `null`. */
function bySection(rows: SoaRow[]): { section: SoaRow | null; rows: SoaRow[] }[] {
  const groups: { section: SoaRow | null; rows: SoaRow[] }[] = [];
  for (const row of rows) {
    if (row.is_section && row.parent_id === null) groups.push({ section: row, rows: [] });
    else {
      if (groups.length === 0) groups.push({ section: null, rows: [] });
      groups.at(-1)?.rows.push(row);
    }
  }
  return groups;
}

function Summary({ coverage }: { coverage: Coverage }) {
  return (
    <p>
      {coverage.requirements} requirements: {coverage.applicable} applicable, {coverage.excluded} excluded. Of
      the applicable ones {coverage.by_status.IMPLEMENTED ?? 0} implemented (
      {percent(coverage.implemented_share)}), {coverage.by_status.PARTIALLY_IMPLEMENTED ?? 0} partially
      implemented, {coverage.by_status.PLANNED ?? 0} planned, {coverage.by_status.NOT_COVERED ?? 0} not
      covered by any measure.
    </p>
  );
}

export function SoaDocument(props: {
  viewer: Viewer;
  membership: Membership;
  coverage: CoverageResult;
  rows: SoaRow[];
  truncated: boolean;
  generatedAt: Date;
}) {
  const { membership, coverage, rows } = props;
  const framework = coverage.framework;
  const base = `/orgs/${membership.organizationId}/frameworks/${framework.id}`;
  const title = `Statement of applicability: ${framework.name}${framework.version ? ` (${framework.version})` : ''}`;
  return (
    <Layout
      title={`${title} · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'frameworks' }}
    >
      <article class="soa-document">
        <p class="small no-print">
          <a href={base}>{framework.name}</a> › Statement of applicability ·{' '}
          <a href={`${base}/soa.csv`} download>
            CSV
          </a>{' '}
          ·{' '}
          <a href={`${base}/soa.json`} download>
            JSON
          </a>{' '}
          · print or save as PDF from the browser
        </p>
        <h1>{title}</h1>
        <p class="lead">
          {membership.name} · generated {props.generatedAt.toISOString().slice(0, 10)}
        </p>
        <Summary coverage={coverage.coverage} />
        {props.truncated && (
          <p class="notice error">
            This document shows the first {rows.length} rows only; export the rest as CSV.
          </p>
        )}
        {bySection(rows).map((group) => (
          <section class="soa-section">
            <h2>{group.section ? `${group.section.reference} ${group.section.title}` : 'General'}</h2>
            <table class="soa">
              <thead>
                <tr>
                  <th scope="col">Ref</th>
                  <th scope="col">Requirement</th>
                  <th scope="col">Applicable</th>
                  <th scope="col">Justification</th>
                  <th scope="col">Implementation</th>
                  <th scope="col">Measures</th>
                </tr>
              </thead>
              <tbody>
                {group.rows.map((row) =>
                  row.is_section ? (
                    <tr class="section-row">
                      <th scope="rowgroup" colspan={6}>
                        {row.reference} {row.title}
                      </th>
                    </tr>
                  ) : (
                    <tr>
                      <td class="reference">{row.reference}</td>
                      <td>{row.title}</td>
                      <td>{row.applicability === 'EXCLUDED' ? 'No' : 'Yes'}</td>
                      <td>{row.justification ?? ''}</td>
                      <td>{row.implementation_status ? STATUS_LABELS[row.implementation_status] : ''}</td>
                      <td>{row.measures.map((measure) => measure.name).join('; ')}</td>
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          </section>
        ))}
      </article>
    </Layout>
  );
}
