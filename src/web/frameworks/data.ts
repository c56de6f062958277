// What the framework pages read, through the frameworks toolset's tools: coverage and statement rows.
import { frameworkCoverageTool, statementOfApplicabilityTool } from '../../tools/coverage.ts';
import type { WebCalls } from '../tool-calls.ts';

export interface Coverage {
  requirements: number;
  applicable: number;
  excluded: number;
  by_status: Record<string, number>;
  implemented_share: number | null;
  covered_share: number | null;
}

export interface CoverageResult {
  framework: { id: string; name: string; version: string | null };
  coverage: Coverage;
  sections: { id: string | null; reference: string | null; title: string | null; coverage: Coverage }[];
  readiness: { ready: number; not_ready: number; implemented_not_ready: number; ready_share: number | null };
}

export interface SoaRow {
  id: string;
  reference: string;
  title: string;
  is_section: boolean;
  parent_id: string | null;
  applicability: string;
  justification: string | null;
  implementation_status: string | null;
  readiness: string;
  readiness_reasons: { code: string; message: string }[];
  updated_at: string;
  measures: { id: string; name: string; state: string; readiness: string }[];
}

export interface SoaPage {
  framework: CoverageResult['framework'];
  requirements: SoaRow[];
  next_cursor: string | null;
  total_count: number;
  total_count_capped: boolean;
}

/** A statement read in full for the printable document and the exports stops here (the bench's largest is 1,000). */
export const SOA_DOCUMENT_LIMIT = 5000;
/** Rows per page of a statement read for a document: the tool's largest page. */
const SOA_PAGE_SIZE = 100;

/** The framework's coverage, read as the signed-in person (not_found as for the tool). */
export async function coverageOf(calls: WebCalls, frameworkId: string) {
  return calls.read(frameworkCoverageTool, { framework_id: frameworkId });
}

/** One page of the statement through the seam (checked and logged, as the page's own call). */
export function soaPage(
  calls: WebCalls,
  frameworkId: string,
  cursor: string | undefined,
  size = SOA_PAGE_SIZE,
) {
  return calls.read(statementOfApplicabilityTool, {
    framework_id: frameworkId,
    size,
    ...(cursor ? { cursor } : {}),
  });
}

/** The pages after a first one, read directly (one logged call per document), up to SOA_DOCUMENT_LIMIT rows. */
export async function remainingRows(calls: WebCalls, first: SoaPage): Promise<SoaRow[]> {
  const rows = [...first.requirements];
  let cursor = first.next_cursor;
  while (cursor && rows.length < SOA_DOCUMENT_LIMIT) {
    const page = (await calls.run(statementOfApplicabilityTool, {
      framework_id: first.framework.id,
      size: SOA_PAGE_SIZE,
      cursor,
    })) as unknown as SoaPage;
    rows.push(...page.requirements);
    cursor = page.next_cursor;
  }
  return rows;
}

/** Each row's depth in the tree, from the parents read before it (a parent on an earlier page counts as 0). */
export function depthsOf(rows: SoaRow[]): Map<string, number> {
  const depths = new Map<string, number>();
  for (const row of rows) {
    const parent = row.parent_id ? depths.get(row.parent_id) : undefined;
    depths.set(row.id, parent === undefined ? (row.parent_id ? 1 : 0) : parent + 1);
  }
  return depths;
}

export const STATUS_LABELS: Record<string, string> = {
  NOT_COVERED: 'Not covered',
  PLANNED: 'Planned',
  PARTIALLY_IMPLEMENTED: 'Partially implemented',
  IMPLEMENTED: 'Implemented',
  NOT_APPLICABLE: 'Not applicable',
};

export const STATUS_TONES: Record<string, 'ok' | 'warn' | 'bad' | undefined> = {
  NOT_COVERED: 'bad',
  PLANNED: 'warn',
  PARTIALLY_IMPLEMENTED: 'warn',
  IMPLEMENTED: 'ok',
  NOT_APPLICABLE: undefined,
};

/** Readiness (src/tools/readiness.ts) as the pages show it beside the declared status. */
export const READINESS_LABELS: Record<string, string> = {
  READY: 'Ready',
  NOT_READY: 'Not ready',
  NOT_APPLICABLE: 'Not applicable',
};

export const READINESS_TONES: Record<string, 'ok' | 'warn' | 'bad' | undefined> = {
  READY: 'ok',
  NOT_READY: 'bad',
  NOT_APPLICABLE: undefined,
};

export const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 100)}%`);
