// The framework pages' own routes: the statement of applicability (document, CSV, JSON) and the in-place edit of a
// requirement's applicability and justification. The framework's page itself is its register record page.
import { type Context, Hono } from 'hono';
import { statementOfApplicabilityTool } from '../../tools/coverage.ts';
import { REGISTERS } from '../../tools/index.ts';
import { CSV_BOM, csvLine } from '../../tools/tables/csv-writer.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { downloadResponse, type Page, streamPages } from '../export.ts';
import { setFlash } from '../flash.ts';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';
import {
  type CoverageResult,
  coverageOf,
  remainingRows,
  SOA_DOCUMENT_LIMIT,
  type SoaPage,
  type SoaRow,
  STATUS_LABELS,
  soaPage,
} from './data.ts';
import { SoaDocument } from './soa-document.tsx';

const FRAMEWORK_PATH = '/orgs/:org/frameworks/:id{fwk_[0-9a-z]+}';

const CSV_COLUMNS = [
  'Reference',
  'Title',
  'Section',
  'Applicable',
  'Justification',
  'Implementation status',
  'Measures',
  'Requirement id',
  'Measure ids',
];

function csvRow(row: SoaRow): string {
  return csvLine([
    row.reference,
    row.title,
    row.is_section ? 'yes' : 'no',
    row.is_section ? '' : row.applicability === 'EXCLUDED' ? 'no' : 'yes',
    row.justification,
    row.implementation_status ? STATUS_LABELS[row.implementation_status] : '',
    row.measures.map((measure) => measure.name),
    row.id,
    row.measures.map((measure) => measure.id),
  ]);
}

export function frameworkRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /** The membership and the statement's first page and coverage, or the page to send instead. */
  async function statementOf(c: Context<WebEnv>) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return { refused: notFoundPage(c, viewerOf(c)) } as const;
    const calls = webCalls(c, deps);
    const id = c.req.param('id') ?? '';
    const [coverage, first] = await Promise.all([coverageOf(calls, id), soaPage(calls, id, undefined)]);
    if (!coverage.ok || !first.ok) {
      const error = coverage.ok
        ? (first as { error: { code: string; status: number; message: string } }).error
        : coverage.error;
      if (error.code === 'not_found') return { refused: notFoundPage(c, viewerOf(c)) } as const;
      return {
        refused: errorPage(c, error.status as 400, 'Something went wrong', error.message, viewerOf(c)),
      } as const;
    }
    return {
      membership,
      calls,
      coverage: coverage.result as unknown as CoverageResult,
      first: first.result as unknown as SoaPage,
    } as const;
  }

  web.get(`${FRAMEWORK_PATH}/soa`, async (c) => {
    const found = await statementOf(c);
    if ('refused' in found) return found.refused;
    const rows = await remainingRows(found.calls, found.first);
    return sendPage(
      c,
      <SoaDocument
        viewer={viewerOf(c)}
        membership={found.membership}
        coverage={found.coverage}
        rows={rows}
        truncated={rows.length >= SOA_DOCUMENT_LIMIT && found.first.total_count > rows.length}
        generatedAt={deps.now()}
      />,
    );
  });

  async function exportStatement(c: Context<WebEnv>, format: 'csv' | 'json') {
    const found = await statementOf(c);
    if ('refused' in found) return found.refused;
    const { calls, coverage, first } = found;
    const pageOf = (result: SoaPage): Page<SoaRow> => ({
      rows: result.requirements,
      nextCursor: result.next_cursor,
    });
    const next = async (cursor: string) =>
      pageOf(
        (await calls.run(statementOfApplicabilityTool, {
          framework_id: coverage.framework.id,
          size: 100,
          cursor,
        })) as unknown as SoaPage,
      );
    let written = 0;
    const body = streamPages<SoaRow>({
      first: pageOf(first),
      next,
      head:
        format === 'csv'
          ? CSV_BOM + csvLine(CSV_COLUMNS)
          : `{"framework":${JSON.stringify(coverage.framework)},"generated_at":${JSON.stringify(deps.now().toISOString())},"coverage":${JSON.stringify(coverage.coverage)},"requirements":[`,
      encode: (rows) =>
        format === 'csv'
          ? rows.map(csvRow).join('')
          : rows.map((row) => `${written++ === 0 ? '' : ','}\n${JSON.stringify(row)}`).join(''),
      tail: format === 'csv' ? '' : '\n]}\n',
      onError: (error) => deps.invoke.logError(c.get('requestId'), error),
    });
    return downloadResponse(body, {
      organizationName: found.membership.name,
      what: `soa-${coverage.framework.name}`,
      date: deps.now(),
      format,
    });
  }

  web.get(`${FRAMEWORK_PATH}/soa.csv`, (c) => exportStatement(c, 'csv'));
  web.get(`${FRAMEWORK_PATH}/soa.json`, (c) => exportStatement(c, 'json'));

  // The framework page's in-place edit: applicability and justification through updateRequirement.
  web.post('/orgs/:org/requirements/:id{req_[0-9a-z]+}/applicability', async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership);
    const body = await c.req.parseBody();
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const back = text('back').startsWith(`/orgs/${membership.organizationId}/`)
      ? text('back')
      : `/orgs/${membership.organizationId}/frameworks`;
    const id = c.req.param('id') ?? '';
    const justification = text('justification').trim();
    const outcome = await webCalls(c, deps).write(REGISTERS.requirement.update, {
      id,
      applicability: text('applicability'),
      ...(justification ? { justification } : { clear: ['justification'] }),
      ...(text('expected_updated_at') ? { expected_updated_at: text('expected_updated_at') } : {}),
    });
    if (!outcome.ok && outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    const saved = outcome.ok ? (outcome.result.requirement as { reference: string }) : null;
    setFlash(
      c,
      saved
        ? `Requirement ${saved.reference}: applicability saved.`
        : `Not saved: ${outcome.ok ? '' : outcome.error.message}`,
    );
    return c.redirect(`${back}#${id}`, 303);
  });

  return web;
}
