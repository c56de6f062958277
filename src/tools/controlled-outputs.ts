// Controlled outputs: the statement of applicability, the risk register and the risk treatment plan published as
// document versions. Each publish renders a PDF (src/pdf/document.ts) and a JSON copy, stores both, and writes them as
// the next version of the organization's document of that kind (added on first publish), submitted for approval:
// approveDocument and updateDocument PUBLISHED follow, as for policies. Both hosts make the same bytes.
import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  documents,
  measures,
  organizations,
  people,
  requirementMeasures,
  requirements,
  riskMeasures,
  risks,
} from '../db/schema.ts';
import { AppError, invalidArguments } from '../errors.ts';
import { receiveFile } from '../files/receive.ts';
import { type Block, renderPdf } from '../pdf/document.ts';
import { requireOrganization } from './access.ts';
import { DOWNLOAD_SCHEMAS, fileDownload } from './attached-files.ts';
import { coverageOf, documentsCovering, lacksJustification, loadFramework } from './coverage.ts';
import { type DocumentVersion, versionSchema, versionsOf } from './document-versions.ts';
import { idOf } from './fields.ts';
import type { RegisterTools } from './registers/builder.ts';
import type { Row } from './registers/spec.ts';
import { addRecord, updateRecord } from './registers/write-tools.ts';
import { describeMethod } from './risk-method.ts';
import { acceptanceStatusOf } from './risks.ts';
import { readSettings } from './settings.ts';
import { CREATE_ANNOTATIONS, defineTool, type Tool, type ToolContext } from './types.ts';

/** The most rows a published document holds (a statement of 5,000 requirements is some 200 pages). */
export const MAX_PUBLISHED_ROWS = 5000;
/** Rows without a justification named in a refusal (the count is always whole). */
const LISTED_GAPS = 50;

const REASON_WORDS: Record<string, string> = {
  LEGAL: 'legal',
  CONTRACTUAL: 'contractual',
  RISK_ASSESSMENT: 'risk assessment',
  BEST_PRACTICE: 'best practice',
};
const STATUS_WORDS: Record<string, string> = {
  NOT_COVERED: 'Not covered',
  PLANNED: 'Planned',
  PARTIALLY_IMPLEMENTED: 'Partially implemented',
  IMPLEMENTED: 'Implemented',
  NOT_APPLICABLE: 'Not applicable',
};

/** What a publish renders: the document it goes to, its PDF blocks, its JSON copy and a Markdown summary. */
interface Rendering {
  source: string;
  type: 'STATEMENT_OF_APPLICABILITY' | 'RISK_REGISTER' | 'RISK_TREATMENT_PLAN';
  title: string;
  /** The file name without extension, e.g. "statement-of-applicability-iso-27001". */
  slug: string;
  blocks(header: Block[]): Block[];
  data: Record<string, unknown>;
  summary: string;
}

const publishInput = {
  owner_id: idOf('per', 'Person').optional().describe('Owner of the document (`per_...`); kept if omitted.'),
  approver_ids: z
    .array(idOf('per', 'Person'))
    .min(1)
    .max(20)
    .optional()
    .describe('Who may approve it (`per_...`); required the first time, kept if omitted.'),
};

/** The organization's name and the names of people, for the document's header. */
async function namesOf(ctx: ToolContext, organizationId: string, personIds: string[]) {
  const [organization] = await ctx.db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  const found = personIds.length
    ? await ctx.db
        .select({ id: people.id, full_name: people.full_name })
        .from(people)
        .where(and(eq(people.organization_id, organizationId), inArray(people.id, personIds)))
    : [];
  return {
    organization: organization?.name ?? organizationId,
    people: new Map(found.map((p) => [p.id, p.full_name])),
  };
}

/** The organization's live document of a source (not retired), if any. */
async function currentDocument(
  ctx: ToolContext,
  register: RegisterTools,
  organizationId: string,
  source: string,
) {
  const [found] = await ctx.db
    .select({ id: documents.id })
    .from(documents)
    .where(
      and(
        eq(documents.organization_id, organizationId),
        eq(documents.source, source),
        ne(documents.status, 'RETIRED'),
      ),
    )
    .orderBy(desc(documents.created_at), desc(documents.id))
    .limit(1);
  // As the tools answer it: its relations (approver_ids) as lists.
  return found ? register.records.present(await register.records.load(ctx, found.id, 'write'), ctx) : null;
}

/**
 * Renders and stores the PDF and the JSON copy and writes them as the document's next version, IN_REVIEW: a new
 * document the first time (owner and approvers given), else a new version of the live one (or its pending draft or
 * review replaced). Answers the document, its latest version and a link to the PDF.
 */
async function publish(
  ctx: ToolContext,
  register: RegisterTools,
  tool: string,
  organizationId: string,
  input: { owner_id?: string | undefined; approver_ids?: string[] | undefined },
  rendering: Rendering,
) {
  const current = await currentDocument(ctx, register, organizationId, rendering.source);
  if (!current && !input.approver_ids)
    throw invalidArguments(
      `The first ${rendering.title} needs approver_ids: the people who approve it, as for a policy.`,
      [{ path: 'approver_ids', message: 'Required the first time: give at least one person' }],
    );
  const startsNew = current?.status === 'APPROVED' || current?.status === 'PUBLISHED';
  const version = current ? Number(current.version) + (startsNew ? 1 : 0) : 1;
  const ownerId = input.owner_id ?? (current?.owner_id as string | null | undefined) ?? null;
  const approverIds = input.approver_ids ?? (current?.approver_ids as string[] | undefined) ?? [];
  const names = await namesOf(ctx, organizationId, [...(ownerId ? [ownerId] : []), ...approverIds]);
  const now = ctx.now();
  const generated = now.toISOString();
  const personName = (id: string) => names.people.get(id) ?? id;
  const header: Block[] = [
    { kind: 'heading', level: 1, text: rendering.title },
    {
      kind: 'paragraph',
      text: `${names.organization} · version ${version} · generated ${generated.slice(0, 16).replace('T', ' ')} UTC`,
    },
    {
      kind: 'paragraph',
      text: `Owner: ${ownerId ? personName(ownerId) : 'none'}. Approvers: ${approverIds.map(personName).join(', ') || 'none'}. Its approval (who, when) is recorded with this version of the document.`,
      small: true,
    },
  ];
  const pdf = renderPdf(
    {
      title: rendering.title,
      footer: `${names.organization} · ${rendering.title} · version ${version}`,
      blocks: rendering.blocks(header),
    },
    now,
  );
  const data = {
    kind: rendering.type.toLowerCase(),
    organization: { id: organizationId, name: names.organization },
    title: rendering.title,
    version,
    generated_at: generated,
    owner_id: ownerId,
    approver_ids: approverIds,
    ...rendering.data,
  };
  const json = new TextEncoder().encode(`${JSON.stringify(data, null, 2)}\n`);
  const name = `${rendering.slug}-v${version}`;
  const [pdfFile, jsonFile] = [
    await receiveFile(ctx, organizationId, pdf, { name: `${name}.pdf` }),
    await receiveFile(ctx, organizationId, json, { name: `${name}.json` }),
  ];
  const files = { file_id: pdfFile.id, data_file_id: jsonFile.id, content: rendering.summary };
  const people = {
    ...(input.owner_id ? { owner_id: input.owner_id } : {}),
    ...(input.approver_ids ? { approver_ids: input.approver_ids } : {}),
  };
  let id: string;
  if (!current) {
    const args = register.add.input.parse({
      organization_id: organizationId,
      title: rendering.title,
      type: rendering.type,
      status: 'IN_REVIEW',
      content: rendering.summary,
      ...people,
    }) as Row;
    const added = await addRecord(
      ctx,
      register.records,
      tool,
      { ...args, file_id: pdfFile.id },
      {
        source: rendering.source,
        data_file_id: jsonFile.id,
      },
    );
    id = String((added.document as Row).id);
  } else {
    id = String(current.id);
    const updated = await updateRecord(ctx, register.records, tool, { id, ...files, ...people });
    if ((updated.document as Row).status === 'DRAFT')
      await updateRecord(ctx, register.records, tool, { id, status: 'IN_REVIEW' });
  }
  const [latest] = await versionsOf(ctx, id, false);
  const link = await fileDownload(ctx, {
    organizationId,
    fileId: latest?.file_id,
    subjectId: String(latest?.id),
  });
  return {
    document: register.records.present(await register.records.load(ctx, id, 'read'), ctx),
    version: latest as DocumentVersion,
    ...link,
  };
}

/** A table's cells: never null. */
const cell = (value: unknown) => (value === null || value === undefined ? '' : String(value));

// ---- the statement of applicability --------------------------------------------------------------------------

/** The statement's rows in document order, with their measures and documents; refused when one lacks a justification. */
async function statementRendering(
  ctx: ToolContext,
  framework: { id: string; name: string; version: string | null },
) {
  const rows = await ctx.db
    .select({
      id: requirements.id,
      reference: requirements.reference,
      title: requirements.title,
      is_section: requirements.is_section,
      parent_id: requirements.parent_id,
      section_id: requirements.section_id,
      applicability: requirements.applicability,
      justification: requirements.justification,
      inclusion_reasons: requirements.inclusion_reasons,
      implementation_status: requirements.implementation_status,
    })
    .from(requirements)
    .where(eq(requirements.framework_id, framework.id))
    .orderBy(asc(requirements.reference_key), asc(requirements.id))
    .limit(MAX_PUBLISHED_ROWS + 1);
  if (rows.length > MAX_PUBLISHED_ROWS)
    throw invalidArguments(
      `This framework has more than ${MAX_PUBLISHED_ROWS} requirements: too many to publish as one document.`,
      [{ path: 'framework_id', message: `At most ${MAX_PUBLISHED_ROWS} requirements` }],
    );
  const gaps = await ctx.db
    .select({ reference: requirements.reference })
    .from(requirements)
    .where(and(eq(requirements.framework_id, framework.id), lacksJustification))
    .orderBy(asc(requirements.reference_key));
  if (gaps.length > 0) {
    const listed = gaps.slice(0, LISTED_GAPS).map((gap) => gap.reference);
    throw new AppError(
      'invalid_arguments',
      `${gaps.length} ${gaps.length === 1 ? 'requirement has' : 'requirements have'} no justification, which the statement of applicability needs for every row: ${listed.join(', ')}${gaps.length > listed.length ? ', ...' : ''}. Give each one (updateRequirement justification, or importRecords), then publish again.`,
      listed.map((reference) => ({
        path: `requirements[${reference}].justification`,
        message: 'No justification',
      })),
    );
  }
  const ids = rows.map((row) => row.id);
  const linked: { requirement_id: string; name: string; state: string }[] = [];
  for (let at = 0; at < ids.length; at += 500)
    linked.push(
      ...(await ctx.db
        .select({
          requirement_id: requirementMeasures.requirement_id,
          name: measures.name,
          state: measures.state,
        })
        .from(requirementMeasures)
        .innerJoin(measures, eq(measures.id, requirementMeasures.measure_id))
        .where(inArray(requirementMeasures.requirement_id, ids.slice(at, at + 500)))
        .orderBy(asc(measures.name))),
    );
  const measuresOf = new Map<string, { name: string; state: string }[]>();
  for (const { requirement_id, ...measure } of linked)
    measuresOf.set(requirement_id, [...(measuresOf.get(requirement_id) ?? []), measure]);
  const documentsOf = await documentsCovering(ctx, ids);
  const coverage = coverageOf(
    rows.map((row) => ({
      section: row.is_section,
      applicability: row.applicability,
      status: row.implementation_status,
      n: 1,
    })),
  );
  const statement = rows.map((row) => ({
    id: row.id,
    reference: row.reference,
    title: row.title,
    is_section: row.is_section,
    parent_id: row.parent_id,
    applicability: row.is_section ? null : row.applicability,
    inclusion_reasons: row.is_section ? [] : row.inclusion_reasons,
    justification: row.justification,
    implementation_status: row.implementation_status,
    measures: measuresOf.get(row.id) ?? [],
    documents: (documentsOf.get(row.id) ?? []).map(({ id, title, status }) => ({ id, title, status })),
  }));
  const name = `${framework.name}${framework.version ? ` (${framework.version})` : ''}`;
  const title = `Statement of applicability: ${name}`;
  const columns = [
    { title: 'Ref', width: 1.1 },
    { title: 'Requirement', width: 2.4 },
    { title: 'Applicable', width: 1 },
    { title: 'Reasons', width: 1.3 },
    { title: 'Justification', width: 3 },
    { title: 'Status', width: 1.3 },
    { title: 'Measures', width: 2 },
    { title: 'Documents', width: 1.8 },
  ];
  const tableRow = (row: (typeof statement)[number]) => [
    row.reference,
    row.title,
    row.applicability === 'EXCLUDED' ? 'No' : 'Yes',
    row.inclusion_reasons.map((reason) => REASON_WORDS[reason] ?? reason).join(', '),
    cell(row.justification),
    STATUS_WORDS[cell(row.implementation_status)] ?? cell(row.implementation_status),
    row.measures
      .map((measure) => `${measure.name} (${measure.state.toLowerCase().replace(/_/g, ' ')})`)
      .join('; '),
    row.documents.map((document) => document.title).join('; '),
  ];
  return {
    source: `statement_of_applicability:${framework.id}`,
    type: 'STATEMENT_OF_APPLICABILITY' as const,
    title,
    slug: `statement-of-applicability-${slugOf(name)}`,
    blocks(header: Block[]): Block[] {
      const blocks: Block[] = [
        ...header,
        {
          kind: 'paragraph',
          text: `${coverage.requirements} requirements: ${coverage.applicable} applicable, ${coverage.excluded} excluded. Of the applicable ones ${coverage.by_status.IMPLEMENTED} implemented, ${coverage.by_status.PARTIALLY_IMPLEMENTED} partially implemented, ${coverage.by_status.PLANNED} planned, ${coverage.by_status.NOT_COVERED} not covered by a measure.`,
        },
      ];
      // One table per top-level section, under its heading; rows outside any section first.
      let group: string[][] = [];
      let heading: string | null = null;
      const flush = () => {
        if (heading === null && group.length === 0) return;
        if (heading !== null) blocks.push({ kind: 'heading', level: 2, text: heading });
        if (group.length > 0) blocks.push({ kind: 'table', columns, rows: group });
        group = [];
      };
      for (const row of statement) {
        if (row.is_section && row.parent_id === null) {
          flush();
          heading = `${row.reference} ${row.title}`;
        } else if (row.is_section)
          group.push([row.reference, row.title.toUpperCase(), '', '', cell(row.justification), '', '', '']);
        else group.push(tableRow(row));
      }
      flush();
      return blocks;
    },
    data: { framework, coverage, requirements: statement },
    summary: `# ${title}\n\nGenerated by the service from the framework's requirements: ${coverage.requirements} requirements, ${coverage.applicable} applicable, ${coverage.excluded} excluded. The PDF is this version's file; its JSON copy is the version's machine-readable copy (data_file_id).\n`,
  } satisfies Rendering;
}

function slugOf(text: string): string {
  // Each run of other characters is one dash, so at most one leads and one trails.
  const dashed = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const start = dashed.startsWith('-') ? 1 : 0;
  const end = dashed.endsWith('-') ? dashed.length - 1 : dashed.length;
  return dashed.slice(start, Math.max(start, end)).slice(0, 60) || 'document';
}

// ---- the risk register and treatment plan ----------------------------------------------------------------------

async function riskRows(ctx: ToolContext, organizationId: string, treatmentPlan: boolean) {
  const rows = await ctx.db
    .select({
      id: risks.id,
      name: risks.name,
      category: risks.category,
      status: risks.status,
      treatment: risks.treatment,
      owner_id: risks.owner_id,
      owner: people.full_name,
      inherent_likelihood: risks.inherent_likelihood,
      inherent_impact: risks.inherent_impact,
      inherent_score: risks.inherent_score,
      inherent_level: risks.inherent_level,
      residual_likelihood: risks.residual_likelihood,
      residual_impact: risks.residual_impact,
      residual_score: risks.residual_score,
      residual_level: risks.residual_level,
      above_appetite: risks.above_appetite,
      accepted_until: risks.accepted_until,
    })
    .from(risks)
    .leftJoin(people, eq(people.id, risks.owner_id))
    .where(
      and(
        eq(risks.organization_id, organizationId),
        treatmentPlan ? sql`${risks.status} <> 'CLOSED' and ${risks.treatment} <> 'ACCEPT'` : undefined,
      ),
    )
    .orderBy(desc(risks.residual_score), asc(risks.name), asc(risks.id))
    .limit(MAX_PUBLISHED_ROWS + 1);
  if (rows.length > MAX_PUBLISHED_ROWS)
    throw invalidArguments(`More than ${MAX_PUBLISHED_ROWS} risks: too many to publish as one document.`, [
      { path: 'organization_id', message: `At most ${MAX_PUBLISHED_ROWS} risks` },
    ]);
  return rows;
}

async function riskRendering(ctx: ToolContext, organizationId: string, plan: boolean): Promise<Rendering> {
  const method = (await readSettings(ctx.db, organizationId)).risk_method;
  const rows = await riskRows(ctx, organizationId, plan);
  const today = ctx.now().toISOString().slice(0, 10);
  const ids = rows.map((row) => row.id);
  const measuresOf = new Map<string, { name: string; state: string; owner_id: string | null }[]>();
  if (plan)
    for (let at = 0; at < ids.length; at += 500) {
      const linked = await ctx.db
        .select({
          risk_id: riskMeasures.risk_id,
          name: measures.name,
          state: measures.state,
          owner_id: measures.owner_id,
        })
        .from(riskMeasures)
        .innerJoin(measures, eq(measures.id, riskMeasures.measure_id))
        .where(inArray(riskMeasures.risk_id, ids.slice(at, at + 500)))
        .orderBy(asc(measures.name));
      for (const { risk_id, ...measure } of linked)
        measuresOf.set(risk_id, [...(measuresOf.get(risk_id) ?? []), measure]);
    }
  const entries = rows.map((row) => ({
    ...row,
    acceptance_status: acceptanceStatusOf(row, today),
    ...(plan ? { measures: measuresOf.get(row.id) ?? [] } : {}),
  }));
  const scored = (l: number, i: number, score: number, level: string) => `${l} x ${i} = ${score} (${level})`;
  const title = plan ? 'Risk treatment plan' : 'Risk register';
  const methodText = `Risk method: ${describeMethod(method)}`;
  const table: Block = plan
    ? {
        kind: 'table',
        columns: [
          { title: 'Risk', width: 2.6 },
          { title: 'Owner', width: 1.3 },
          { title: 'Residual', width: 1.4 },
          { title: 'Treatment', width: 1.1 },
          { title: 'Status', width: 1.1 },
          { title: 'Measures (state)', width: 3 },
        ],
        rows: entries.map((entry) => [
          entry.name,
          cell(entry.owner),
          scored(
            entry.residual_likelihood,
            entry.residual_impact,
            entry.residual_score,
            entry.residual_level,
          ),
          entry.treatment,
          entry.status,
          (entry.measures ?? [])
            .map((measure) => `${measure.name} (${measure.state.toLowerCase().replace(/_/g, ' ')})`)
            .join('; ') || 'No measure yet',
        ]),
      }
    : {
        kind: 'table',
        columns: [
          { title: 'Risk', width: 2.6 },
          { title: 'Category', width: 1.1 },
          { title: 'Owner', width: 1.3 },
          { title: 'Inherent', width: 1.4 },
          { title: 'Residual', width: 1.4 },
          { title: 'Status', width: 1.1 },
          { title: 'Treatment', width: 1.1 },
          { title: 'Accepted until', width: 1.1 },
        ],
        rows: entries.map((entry) => [
          `${entry.name}${entry.above_appetite ? ' (above appetite)' : ''}`,
          entry.category,
          cell(entry.owner),
          scored(
            entry.inherent_likelihood,
            entry.inherent_impact,
            entry.inherent_score,
            entry.inherent_level,
          ),
          scored(
            entry.residual_likelihood,
            entry.residual_impact,
            entry.residual_score,
            entry.residual_level,
          ),
          entry.status,
          entry.treatment,
          entry.accepted_until
            ? `${entry.accepted_until}${entry.acceptance_status === 'EXPIRED' ? ' (expired)' : ''}`
            : '',
        ]),
      };
  const above = entries.filter((entry) => entry.above_appetite).length;
  return {
    source: plan ? 'risk_treatment_plan' : 'risk_register',
    type: plan ? 'RISK_TREATMENT_PLAN' : 'RISK_REGISTER',
    title,
    slug: plan ? 'risk-treatment-plan' : 'risk-register',
    blocks: (header) => [
      ...header,
      { kind: 'paragraph', text: methodText },
      {
        kind: 'paragraph',
        text: plan
          ? `${entries.length} risks treated (not closed, treatment other than ACCEPT), by residual score.`
          : `${entries.length} risks, ${above} above the appetite, by residual score.`,
      },
      { kind: 'heading', level: 2, text: plan ? 'Treatments' : 'Risks' },
      table,
    ],
    data: { method, risks: entries },
    summary: `# ${title}\n\nGenerated by the service from the risk register: ${entries.length} risks. ${methodText}\n`,
  };
}

// ---- the tools ---------------------------------------------------------------------------------------------------

/** The publish tools, over the documents register's tools. */
export function controlledOutputTools(register: RegisterTools): Tool[] {
  const output = z.object({
    document: register.get.output.shape.document as z.ZodType,
    version: versionSchema,
    ...DOWNLOAD_SCHEMAS,
  });
  const organizationInput = idOf('org', 'Organization').describe('`org_...` id.');
  const riskTool = (plan: boolean) =>
    defineTool({
      name: plan ? 'publishRiskTreatmentPlan' : 'publishRiskRegister',
      title: plan ? 'Publish the risk treatment plan' : 'Publish the risk register',
      description: plan
        ? 'Render the risk treatment plan (risks not closed nor accepted, with their measures) as a PDF and JSON copy, written as the next version of its document, IN_REVIEW; then approveDocument and updateDocument PUBLISHED.'
        : 'Render the risk register (every risk, scores, levels, acceptance) as a PDF and JSON copy, written as the next version of its document, IN_REVIEW; then approveDocument and updateDocument PUBLISHED.',
      scope: 'write',
      toolset: 'documents',
      annotations: CREATE_ANNOTATIONS,
      input: z.strictObject({ organization_id: organizationInput, ...publishInput }),
      output,
      async run(ctx, input) {
        requireOrganization(ctx, input.organization_id, 'write');
        const rendering = await riskRendering(ctx, input.organization_id, plan);
        return publish(
          ctx,
          register,
          plan ? 'publishRiskTreatmentPlan' : 'publishRiskRegister',
          input.organization_id,
          input,
          rendering,
        );
      },
    });
  const statement = defineTool({
    name: 'publishStatementOfApplicability',
    title: 'Publish the statement of applicability',
    description:
      "Render a framework's statement of applicability as a PDF and JSON copy, written as the next version of its document, IN_REVIEW (then approveDocument, updateDocument PUBLISHED). Refused while a requirement lacks a justification: it lists them.",
    scope: 'write',
    toolset: 'frameworks',
    annotations: CREATE_ANNOTATIONS,
    input: z.strictObject({
      framework_id: idOf('fwk', 'Framework').describe('The framework (`fwk_...`).'),
      ...publishInput,
    }),
    output,
    async run(ctx, input) {
      const { organization_id: organizationId, ...framework } = await loadFramework(
        ctx,
        input.framework_id,
        'write',
      );
      const rendering = await statementRendering(ctx, framework);
      return publish(ctx, register, 'publishStatementOfApplicability', organizationId, input, rendering);
    },
  });
  return [statement, riskTool(false), riskTool(true)];
}
