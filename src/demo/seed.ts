// Seeds the demo: a user, an organization holding the demo records (DEMO_RECORDS, added through the tool map) and
// a token. addDemoRecords also fills any organization, for tests and benchmarks.
import { and, count, eq, isNotNull, isNull } from 'drizzle-orm';
import { createOrganization, createUser } from '../accounts.ts';
import type { Principal } from '../auth/principal.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import { documents, requirements, trustPages, users } from '../db/schema.ts';
import type { FileRuntime } from '../files/store.ts';
import { newId, randomBase32 } from '../ids.ts';
import { heldBack, storeProposal } from '../proposals/store.ts';
import { acknowledgeByLink, findAckLink } from '../tools/acknowledgements/links.ts';
import { adoptCatalog } from '../tools/catalogs/import-tool.ts';
import { acceptMappingProposalsTool } from '../tools/catalogs/proposal-tools.ts';
import { proposeMappings } from '../tools/catalogs/proposals.ts';
import { approveLatestVersion } from '../tools/document-versions.ts';
import {
  ACKNOWLEDGEMENTS,
  AUDIT_CHECKLIST,
  REGISTERS,
  TOOLS,
  VENDOR_QUESTIONNAIRES,
} from '../tools/index.ts';
import { answerByLink, findQuestionnaireLink } from '../tools/questionnaires/links.ts';
import { STARTER_QUESTIONS } from '../tools/questionnaires/starter-template.ts';
import { addStarterQuestionnaireTemplate } from '../tools/questionnaires/templates.ts';
import type { RegisterKind, Row } from '../tools/registers/spec.ts';
import { findTrustSite, recordAccessRequest, TRUST_SLUG_PATTERN } from '../tools/trust-page/site.ts';
import { setTrustPageItemTool, updateTrustPageTool } from '../tools/trust-page/tools.ts';
import { contextOutsideSeam, type ToolContext } from '../tools/types.ts';
import {
  DEMO_CATALOGS,
  DEMO_CHECKLIST,
  DEMO_LINKS,
  DEMO_RECORDS,
  DEMO_USER,
  type DemoCatalog,
  type DemoChecklistResult,
  type DemoDays,
  type DemoLink,
  type DemoRecord,
  type DemoStep,
} from './records.ts';

export interface DemoAccount {
  email: string;
  password: string;
  organization_id: string;
  token: string;
}

export async function isEmptyDatabase(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

function isoDate(base: Date, days: number): string {
  return new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A demo value with its references (`{ref}`) and relative dates (`{days}`) resolved. */
function resolved(value: unknown, ids: ReadonlyMap<string, string>, today: Date): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(item, ids, today));
  if (typeof value !== 'object' || value === null) return value;
  if ('ref' in value) {
    const id = ids.get(String(value.ref));
    if (!id) throw new Error(`Demo record ${String(value.ref)} is referred to before it is added`);
    return id;
  }
  if ('days' in value) return isoDate(today, Number(value.days));
  if ('hours' in value) return new Date(today.getTime() + Number(value.hours) * 3_600_000).toISOString();
  return value;
}

function resolvedValues(values: Record<string, unknown>, ids: ReadonlyMap<string, string>, today: Date) {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, resolved(value, ids, today)]),
  );
}

/** The context acting on a day relative to `today` (its clock moved), or `ctx` itself. */
function ctxOn(ctx: ToolContext, today: Date, at: DemoDays | undefined): ToolContext {
  if (!at) return ctx;
  const time = today.getTime() + at.days * 86_400_000;
  return { ...ctx, now: () => new Date(time) };
}

/** A demo record's next step: an update through its register's tool, or an approval by a demo person. */
async function runStep(
  ctx: ToolContext,
  kind: RegisterKind,
  id: string,
  step: DemoStep,
  ids: ReadonlyMap<string, string>,
  today: Date,
) {
  const register = REGISTERS[kind];
  if ('update' in step) {
    await register.update.run(
      ctx,
      register.update.input.parse({ id, ...resolvedValues(step.update, ids, today) }),
    );
    return;
  }
  // Seeding acts for the demo's approver: the tool would ask that the caller's account be theirs.
  const document = await register.records.load(ctx, id, 'write');
  await approveLatestVersion(ctx, document, String(resolved(step.approveBy, ids, today)));
}

/**
 * Adds `records` and `links` to an organization through the registers' tools (validated, with history rows), in
 * order; answers the id of each keyed record. `ctx` must reach the organization with write rights.
 */
export async function addDemoRecords(
  ctx: ToolContext,
  organizationId: string,
  records: readonly DemoRecord[] = DEMO_RECORDS,
  links: readonly DemoLink[] = DEMO_LINKS,
  catalogs: readonly DemoCatalog[] = DEMO_CATALOGS,
  checklist: readonly DemoChecklistResult[] = DEMO_CHECKLIST,
): Promise<Map<string, string>> {
  // The account seeding the demo is the one its tasks are assigned to.
  const ids = new Map<string, string>([[DEMO_USER, ctx.principal.userId]]);
  const today = ctx.now();
  for (const catalog of catalogs) await adoptDemoCatalog(ctx, organizationId, catalog, ids);
  for (const record of records) {
    const { add, spec } = REGISTERS[record.kind];
    const values = resolvedValues(record.values, ids, today);
    const result = await add.run(
      ctxOn(ctx, today, record.at),
      add.input.parse({ organization_id: organizationId, ...values }),
    );
    const added = result[spec.key] as { id: string };
    if (record.key) ids.set(record.key, added.id);
    for (const step of record.steps ?? [])
      await runStep(ctxOn(ctx, today, step.at), record.kind, added.id, step, ids, today);
  }
  for (const link of links) {
    const tools = REGISTERS[link.kind].links.find((item) => item.relation.field === link.field);
    if (!tools) throw new Error(`No link tools for ${link.kind}.${link.field}`);
    const args = {
      [tools.ownerArgument]: resolved({ ref: link.owner }, ids, today),
      [tools.targetArgument]: resolved({ ref: link.target }, ids, today),
    };
    await tools.link.run(ctx, tools.link.input.parse(args));
  }
  const { record: recordResult } = AUDIT_CHECKLIST;
  for (const item of checklist)
    await recordResult.run(
      ctx,
      recordResult.input.parse({
        audit_id: ids.get(item.audit),
        requirement_id: ids.get(item.requirement),
        result: item.result,
        notes: item.notes,
        ...(item.nonconformity ? { nonconformity_id: ids.get(item.nonconformity) } : {}),
      }),
    );
  const accepting = catalogs.filter((catalog) => catalog.acceptProposals);
  if (accepting.length > 0)
    await proposeMappings(ctx, organizationId, null, { dryRun: false, withExtras: false });
  for (const catalog of accepting)
    await acceptMappingProposalsTool.run(
      ctx,
      acceptMappingProposalsTool.input.parse({
        organization_id: organizationId,
        framework_id: ids.get(catalog.key),
      }),
    );
  return ids;
}

/** Everyone asked to acknowledge the access control policy in force; half of them (the first two) did, by link. */
async function addDemoAcknowledgements(ctx: ToolContext, documentId: string): Promise<void> {
  const { request } = ACKNOWLEDGEMENTS;
  const asked = await request.run(ctx, request.input.parse({ document_id: documentId, audience: 'ALL' }));
  const links = asked.links as { link_path: string }[];
  for (const link of links.slice(0, Math.floor(links.length / 2))) {
    const found = await findAckLink(ctx.db, link.link_path.split('/').at(-1) ?? '', ctx.now());
    if ('grant' in found) await acknowledgeByLink(ctx.db, found.grant, ctx.now());
  }
}

/** The starter questionnaire sent to two vendors: AWS answered it (one access review answered NO), Slack not yet. */
async function addDemoQuestionnaires(ctx: ToolContext, organizationId: string, ids: Map<string, string>) {
  const added = await addStarterQuestionnaireTemplate.run(
    ctx,
    addStarterQuestionnaireTemplate.input.parse({ organization_id: organizationId }),
  );
  const templateId = (added.questionnaire_template as { id: string }).id;
  const due = new Date(ctx.now().getTime() + 14 * 86_400_000).toISOString().slice(0, 10);
  const { send } = VENDOR_QUESTIONNAIRES;
  const sendTo = async (vendor: string, contact_name: string, contact_email: string) =>
    send.run(
      ctx,
      send.input.parse({
        vendor_id: ids.get(vendor),
        template_id: templateId,
        contact_name,
        contact_email,
        due_date: due,
      }),
    );
  const aws = await sendTo('aws', 'Priya Account Manager', 'priya@aws.example');
  await sendTo('slack', 'Sam Security', 'security@slack.example');
  const found = await findQuestionnaireLink(ctx.db, String(aws.link_path).split('/').at(-1) ?? '', ctx.now());
  if (!('grant' in found)) return;
  const answers = STARTER_QUESTIONS.map((question) => ({
    key: question.key,
    answer:
      question.answer_type === 'TEXT'
        ? 'See our security page and the report we shared.'
        : question.answer_type === 'CHOICE'
          ? (question.options[0] ?? '')
          : question.key === 'access_reviewed'
            ? 'NO'
            : 'YES',
  }));
  await answerByLink(ctx.db, found.grant, answers, ctx.now());
}

/**
 * The demo's public trust page at /trust/acme-health (a suffix when another demo holds it): the ISO 27001 framework
 * and its stage 1 audit, the access control policy to read, the statement of applicability on request (when it was
 * published), the sub-processors and a contact; and one visitor's request waiting for a decision.
 */
async function addDemoTrustPage(ctx: ToolContext, organizationId: string, ids: ReadonlyMap<string, string>) {
  const [taken] = await ctx.db
    .select({ id: trustPages.organization_id })
    .from(trustPages)
    .where(eq(trustPages.slug, 'acme-health'))
    .limit(1);
  const slug = taken ? `acme-health-${randomBase32(6)}` : 'acme-health';
  if (!TRUST_SLUG_PATTERN.test(slug)) throw new Error(`Not a trust page slug: ${slug}`);
  await updateTrustPageTool.run(
    ctx,
    updateTrustPageTool.input.parse({
      organization_id: organizationId,
      enabled: true,
      slug,
      title: 'Acme Health trust center',
      introduction:
        'How we protect patient data: our certification work, the policies we follow and the companies that process data for us.',
      contact_email: 'security@acme-health.example',
      show_sub_processors: true,
    }),
  );
  const [statement] = await ctx.db
    .select({ id: documents.id, title: documents.title })
    .from(documents)
    .where(
      and(
        eq(documents.organization_id, organizationId),
        isNotNull(documents.source),
        isNotNull(documents.published_version),
      ),
    )
    .limit(1);
  const shown: [string | undefined, string][] = [
    [ids.get('iso'), 'PUBLIC'],
    [ids.get('stage-1'), 'PUBLIC'],
    [ids.get('access-policy'), 'PUBLIC'],
    [statement?.id, 'ON_REQUEST'],
  ];
  for (const [record_id, visibility] of shown)
    if (record_id)
      await setTrustPageItemTool.run(
        ctx,
        setTrustPageItemTool.input.parse({ organization_id: organizationId, record_id, visibility }),
      );
  const site = await findTrustSite(ctx.db, slug);
  if (statement && site)
    await recordAccessRequest(
      ctx.db,
      site,
      {
        id: newId('tar'),
        documentId: statement.id,
        documentTitle: statement.title,
        name: 'Dana Procurement',
        email: 'dana@hospital.example',
        company: 'City Hospital',
      },
      ctx.now(),
      { mail: false },
    );
}

/** Adopts a built-in catalogue as a framework, keyed as `catalog.key`, its references too; excludes what it says. */
async function adoptDemoCatalog(
  ctx: ToolContext,
  organizationId: string,
  catalog: DemoCatalog,
  ids: Map<string, string>,
) {
  const adopted = await adoptCatalog(ctx, {
    key: catalog.catalog,
    organizationId,
    frameworkId: null,
    dryRun: false,
    removeMissing: false,
  });
  const frameworkId = adopted.framework.id as string;
  ids.set(catalog.key, frameworkId);
  const rows = await ctx.db
    .select({ id: requirements.id, reference: requirements.reference })
    .from(requirements)
    .where(eq(requirements.framework_id, frameworkId));
  const byReference = new Map(rows.map((row) => [row.reference, row.id]));
  if (catalog.references) for (const [reference, id] of byReference) ids.set(reference, id);
  const update = REGISTERS.requirement.update;
  for (const [reference, justification] of Object.entries(catalog.excluded))
    await update.run(
      ctx,
      update.input.parse({ id: byReference.get(reference), applicability: 'EXCLUDED', justification }),
    );
  // The demo's starting point, written at once (a hundred updates would slow every start on the demo).
  if (catalog.applicable)
    await ctx.db
      .update(requirements)
      .set({ justification: catalog.applicable, inclusion_reasons: ['RISK_ASSESSMENT'] })
      .where(
        and(
          eq(requirements.framework_id, frameworkId),
          eq(requirements.is_section, false),
          eq(requirements.applicability, 'APPLICABLE'),
          isNull(requirements.justification),
        ),
      );
}

/**
 * The statement of applicability of each catalogue that says why its requirements apply: rendered as a PDF by its
 * publish tool, approved by the DPO and put in force. Needs the host's stored files (the Node host and the CLI give
 * them; without, nothing is published).
 */
async function publishDemoStatements(ctx: ToolContext, ids: ReadonlyMap<string, string>): Promise<void> {
  const publishTool = TOOLS.get('publishStatementOfApplicability');
  if (!publishTool) throw new Error('No publishStatementOfApplicability tool');
  const approver = String(ids.get('dpo'));
  for (const catalog of DEMO_CATALOGS.filter((item) => item.applicable)) {
    const published = (await publishTool.run(
      ctx,
      publishTool.input.parse({ framework_id: ids.get(catalog.key), approver_ids: [approver] }),
    )) as { document: Row };
    const documents = REGISTERS.document;
    const id = String(published.document.id);
    await approveLatestVersion(ctx, await documents.records.load(ctx, id, 'write'), approver);
    await documents.update.run(ctx, documents.update.input.parse({ id, status: 'PUBLISHED' }));
  }
}

/**
 * One pending proposal, so the Proposals page shows what an assistant's proposed change looks like: a propose
 * token of the demo account proposes a lower residual likelihood for the ransomware risk (the update's own checks).
 */
async function addDemoProposal(
  ctx: ToolContext,
  tokens: TokenService,
  organizationId: string,
  riskId: string,
) {
  const assistant = await tokens.create({
    userId: ctx.principal.userId,
    name: 'Demo assistant (proposes changes)',
    scope: 'propose',
    organizationIds: [organizationId],
    expiresAt: new Date(ctx.now().getTime() + 90 * 86_400_000).toISOString(),
  });
  const proposing: ToolContext = {
    ...ctx,
    principal: { ...ctx.principal, tokenId: assistant.id, scope: 'propose' },
    surface: 'mcp',
  };
  const { update } = REGISTERS.risk;
  const input = update.input.parse({
    id: riskId,
    residual_likelihood: 2,
    note: 'Immutable off-site backups are now restored in a monthly test.',
  });
  const held = await heldBack(proposing, update, input);
  if (!held) throw new Error('The demo proposal was written instead of proposed');
  await storeProposal(proposing, update, input, held);
}

export async function seedDemo(
  db: Db,
  tokens: TokenService,
  now: () => Date,
  files?: FileRuntime,
): Promise<DemoAccount> {
  const email = `demo-${randomBase32(6)}@example.com`;
  const password = `demo-${randomBase32(16)}`;
  const user = await createUser(db, now(), {
    emailVerified: true,
    email,
    password,
    name: 'Demo Compliance Lead',
  });
  const organization = await createOrganization(db, now(), {
    name: 'Acme Health (demo)',
    description: 'A 120-person health-tech SaaS preparing for ISO 27001 certification.',
    ownerId: user.id,
  });
  const principal: Principal = {
    tokenId: 'tok_demo_seed',
    userId: user.id,
    scope: 'read_write',
    roles: { [organization.id]: 'OWNER' },
    expiresAt: null,
  };
  const ctx = contextOutsideSeam(db, principal, now, 'cli', files);
  const ids = await addDemoRecords(ctx, organization.id);
  await addDemoAcknowledgements(ctx, String(ids.get('access-policy')));
  if (files) await publishDemoStatements(ctx, ids);
  await addDemoQuestionnaires(ctx, organization.id, ids);
  await addDemoTrustPage(ctx, organization.id, ids);
  await addDemoProposal(ctx, tokens, organization.id, String(ids.get('data-loss')));
  const token = await tokens.create({
    userId: user.id,
    name: 'Demo token (created at first start)',
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(now().getTime() + 90 * 86_400_000).toISOString(),
  });
  return { email, password, organization_id: organization.id, token: token.token };
}
