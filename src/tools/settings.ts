// An organization's settings: one typed object (each setting with its default), read by the features that follow
// them and changed by OWNER and ADMIN through updateOrganizationSettings, with a history row.
import { and, count, eq, inArray, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { roleIn } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { organizations, people, risks } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { requireOrganization } from './access.ts';
import { changeAfterWrite } from './changes.ts';
import { requirePersonInWeb } from './decisions.ts';
import { caseInsensitiveEnum, idOf } from './fields.ts';
import { REGIMES, type Regime } from './incidents/clocks.ts';
import { isTimeZone } from './overdue.ts';
import {
  DEFAULT_RISK_METHOD,
  firstScoreAboveAppetite,
  levelCase,
  normalizedMethod,
  type RiskMethod,
  riskMethodSchema,
} from './risk-method.ts';
import {
  CHANGED_A_ROW,
  defineTool,
  READ_ANNOTATIONS,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from './types.ts';

export interface OrganizationSettings {
  /** IANA time zone for deadlines shown to people (incident clocks); default UTC. */
  time_zone: string;
  /** The regulatory regimes whose incident notification clocks apply, unless an incident names its own. */
  incident_regimes: Regime[];
  /** The controller's and data protection officer's names and contact details (GDPR Art. 30(1)(a)), or null. */
  privacy_contact: string | null;
  /** Scales, levels and appetite of risk scoring (src/tools/risk-method.ts). */
  risk_method: RiskMethod;
  /** The people who may approve a risk acceptance; empty: any person of the organization. */
  risk_acceptance_approver_ids: string[];
  /** A risk above the appetite is accepted only by an approver who is not its owner. */
  independent_risk_acceptance: boolean;
  /** A document's owner may approve it when also one of its approvers (default false: someone else approves). */
  allow_document_self_approval: boolean;
  /** Approving a document, accepting a risk and deleting records need a person in the web, not an API token. */
  web_only_decisions: boolean;
  /** Who acknowledged an earlier version is asked again when a new one is published: every, major ones, never. */
  reacknowledge_on: ReacknowledgeOn;
  /** Writes from API tokens and assistants that are stored as proposals a person approves in the web (src/proposals/). */
  approval_required: ApprovalAction[];
  /** Days a proposal waits for a decision before it expires. */
  proposal_expiry_days: number;
}

/** What approval_required can hold back: deletes, risk acceptances, or every register write from a token. */
export const APPROVAL_ACTIONS = ['DELETES', 'RISK_ACCEPTANCES', 'ALL_WRITES'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];
export const MAX_PROPOSAL_EXPIRY_DAYS = 90;

export const REACKNOWLEDGE_ON = ['EVERY_VERSION', 'MAJOR_ONLY', 'NEVER'] as const;
export type ReacknowledgeOn = (typeof REACKNOWLEDGE_ON)[number];

export const DEFAULT_SETTINGS: OrganizationSettings = {
  time_zone: 'UTC',
  incident_regimes: ['GDPR'],
  risk_method: DEFAULT_RISK_METHOD,
  risk_acceptance_approver_ids: [],
  independent_risk_acceptance: true,
  privacy_contact: null,
  allow_document_self_approval: false,
  web_only_decisions: false,
  reacknowledge_on: 'NEVER',
  approval_required: [],
  proposal_expiry_days: 7,
};

const timeZone = z
  .string()
  .max(64)
  .refine(isTimeZone, 'Expected an IANA time zone such as Europe/Paris or UTC')
  .describe('IANA time zone, e.g. Europe/Paris: incident deadlines are shown in it (default UTC).');
const regimes = z
  .array(caseInsensitiveEnum(REGIMES))
  .max(REGIMES.length)
  .describe(
    `Regimes whose incident clocks apply: ${REGIMES.join(', ')} (default ["GDPR"]); an incident may name its own.`,
  );

const privacyContact = z
  .string()
  .max(2000)
  .describe(
    'Controller and DPO names and contact details for the Art. 30 record, e.g. "Acme Ltd, privacy@acme.example; DPO: Jo Doe"; "" clears it.',
  );
const approverIds = z
  .array(idOf('per', 'Person'))
  .max(50)
  .describe('People who may approve a risk acceptance; [] (default): any person.');
const independent = z
  .boolean()
  .describe(
    'true (default): a risk above the appetite is accepted only by an approver other than its owner.',
  );

const selfApproval = z
  .boolean()
  .describe("true: a document's owner who is also its approver may approve it; false (default): refused.");
const webOnly = z
  .boolean()
  .describe(
    'true: approving a document, accepting a risk and deleting records need a person in the web interface; API tokens are refused (default false).',
  );

const reacknowledgeOn = caseInsensitiveEnum(REACKNOWLEDGE_ON).describe(
  'Publishing asks earlier acknowledgers again: every, major_change only, never (default).',
);

const approvalRequired = z
  .array(caseInsensitiveEnum(APPROVAL_ACTIONS))
  .max(APPROVAL_ACTIONS.length)
  .describe(
    `Token and assistant writes stored as proposals a person approves in the web: ${APPROVAL_ACTIONS.join(', ')} (register writes); default [].`,
  );
const proposalExpiryDays = z
  .number()
  .int()
  .min(1)
  .max(MAX_PROPOSAL_EXPIRY_DAYS)
  .describe(
    `Days a proposal waits for a decision before it expires (1..${MAX_PROPOSAL_EXPIRY_DAYS}, default 7).`,
  );

const settingsOutput = z
  .object({
    time_zone: z.string().describe('IANA time zone of the organization.'),
    incident_regimes: z.array(z.enum(REGIMES)).describe('Regimes whose incident clocks apply.'),
    privacy_contact: z.string().nullable().describe('Controller and DPO contact for the Art. 30 record.'),
    risk_method: z
      .object({
        likelihood: z.array(z.string()).describe('Likelihood labels; value 1 = first.'),
        impact: z.array(z.string()).describe('Impact labels; value 1 = first.'),
        levels: z
          .array(
            z.object({
              name: z.string().describe('Level name.'),
              min_score: z.number().int().describe('Lowest score of the level.'),
              colour: z.string().describe('Heat-map colour.'),
            }),
          )
          .describe('Levels, lowest first.'),
        appetite: z.string().describe('Highest residual level accepted without a formal acceptance.'),
        high_score: z
          .number()
          .int()
          .nullable()
          .describe(
            'Lowest score above the appetite (null: none); filter.min_residual_score for risks above it.',
          ),
      })
      .describe('How risks are scored (default 5x5: low 1-7, medium 8-14, high 15-25, appetite medium).'),
    risk_acceptance_approver_ids: z
      .array(z.string())
      .describe('Who may approve risk acceptances; []: anyone.'),
    independent_risk_acceptance: z.boolean().describe('Above the appetite, the approver is not the owner.'),
    allow_document_self_approval: z.boolean().describe("A document's owner may approve it."),
    web_only_decisions: z.boolean().describe('Approvals, risk acceptances and deletes only in the web.'),
    reacknowledge_on: z.enum(REACKNOWLEDGE_ON).describe('Re-acknowledgement rule.'),
    approval_required: z.array(z.enum(APPROVAL_ACTIONS)).describe('Token writes that wait for approval.'),
    proposal_expiry_days: z.number().int().describe('Days before a proposal expires.'),
  })
  .describe("The organization's settings.");

/** The settings as the tools answer them: the method with its derived high_score. */
function presentedSettings(settings: OrganizationSettings) {
  return {
    ...settings,
    risk_method: { ...settings.risk_method, high_score: firstScoreAboveAppetite(settings.risk_method) },
  };
}

/** The stored settings over the defaults; a stored value that no longer parses falls back to its default. */
export function settingsFrom(stored: unknown): OrganizationSettings {
  const value = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const zone = timeZone.safeParse(value.time_zone);
  const listed = regimes.safeParse(value.incident_regimes);
  const method = riskMethodSchema.safeParse(value.risk_method);
  const approvers = approverIds.safeParse(value.risk_acceptance_approver_ids);
  const contact = privacyContact.safeParse(value.privacy_contact);
  const approval = approvalRequired.safeParse(value.approval_required);
  const expiry = proposalExpiryDays.safeParse(value.proposal_expiry_days);
  return {
    time_zone: zone.success ? zone.data : DEFAULT_SETTINGS.time_zone,
    incident_regimes: listed.success ? [...new Set(listed.data)] : [...DEFAULT_SETTINGS.incident_regimes],
    privacy_contact: contact.success ? contact.data?.trim() || null : null,
    risk_method: method.success ? normalizedMethod(method.data as RiskMethod) : DEFAULT_RISK_METHOD,
    risk_acceptance_approver_ids: approvers.success ? approvers.data : [],
    independent_risk_acceptance:
      typeof value.independent_risk_acceptance === 'boolean'
        ? value.independent_risk_acceptance
        : DEFAULT_SETTINGS.independent_risk_acceptance,
    allow_document_self_approval: value.allow_document_self_approval === true,
    web_only_decisions: value.web_only_decisions === true,
    reacknowledge_on: REACKNOWLEDGE_ON.includes(value.reacknowledge_on as ReacknowledgeOn)
      ? (value.reacknowledge_on as ReacknowledgeOn)
      : DEFAULT_SETTINGS.reacknowledge_on,
    approval_required: approval.success ? [...new Set(approval.data)] : [],
    proposal_expiry_days: expiry.success ? expiry.data : DEFAULT_SETTINGS.proposal_expiry_days,
  };
}

export async function readSettings(db: Db, organizationId: string): Promise<OrganizationSettings> {
  const [row] = await db
    .select({ settings: organizations.settings })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return settingsFrom(row?.settings);
}

const SETTING_ROLES = new Set(['OWNER', 'ADMIN']);

const SETTINGS_TOOLS: Tool[] = [
  defineTool({
    name: 'getOrganizationSettings',
    title: 'Get organization settings',
    description:
      "The organization's settings: time zone, the regimes (GDPR, NIS2, DORA) whose incident clocks apply, the privacy contact of the Art. 30 record, the risk method (scales, levels, appetite) and who approves risk acceptances.",
    scope: 'read',
    toolset: 'settings',
    annotations: READ_ANNOTATIONS,
    input: z.strictObject({ organization_id: idOf('org', 'Organization').describe('Organization id.') }),
    output: z.object({ settings: settingsOutput }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      return { settings: presentedSettings(await readSettings(ctx.db, input.organization_id)) };
    },
  }),
  defineTool({
    name: 'updateOrganizationSettings',
    title: 'Update organization settings',
    description:
      "Change the organization's settings (OWNER or ADMIN): time zone, incident regimes (recomputes incident clocks), privacy contact, risk method (scales, levels, appetite; given whole, re-derives risk levels), risk acceptance approvers, self-approval, web-only.",
    scope: 'write',
    toolset: 'settings',
    annotations: UPDATE_ANNOTATIONS,
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('Organization id.'),
      time_zone: timeZone.optional(),
      incident_regimes: regimes.optional(),
      privacy_contact: privacyContact.optional(),
      risk_method: riskMethodSchema.optional(),
      risk_acceptance_approver_ids: approverIds.optional(),
      independent_risk_acceptance: independent.optional(),
      allow_document_self_approval: selfApproval.optional(),
      web_only_decisions: webOnly.optional(),
      reacknowledge_on: reacknowledgeOn.optional(),
      approval_required: approvalRequired.optional(),
      proposal_expiry_days: proposalExpiryDays.optional(),
    }),
    output: z.object({ settings: settingsOutput }),
    async run(ctx, input) {
      const { organization_id, ...changes } = input;
      requireOrganization(ctx, organization_id, 'write');
      if (!SETTING_ROLES.has(roleIn(ctx.principal, organization_id) ?? ''))
        throw new AppError('forbidden', 'Only an OWNER or ADMIN of the organization changes its settings.');
      return {
        settings: presentedSettings(
          await writeSettings(ctx, organization_id, changes as Partial<OrganizationSettings>),
        ),
      };
    },
  }),
];

/** Writes the given settings over the current ones, with a history row of what changed (kind `organization`). */
async function writeSettings(
  ctx: ToolContext,
  organizationId: string,
  changes: Partial<OrganizationSettings>,
): Promise<OrganizationSettings> {
  const [row] = await ctx.db
    .select({ settings: organizations.settings, updated_at: organizations.updated_at })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  if (!row) throw notFound('Organization');
  const current = settingsFrom(row.settings);
  // While decisions need the web, the settings that guard them change only there too (a token could lift them).
  if (
    current.web_only_decisions &&
    (changes.web_only_decisions === false || changes.allow_document_self_approval)
  )
    requirePersonInWeb(
      ctx,
      current,
      'changing web_only_decisions or allow_document_self_approval',
      `/orgs/${organizationId}/settings`,
    );
  // A token held back by approval_required must not lift it: narrowing it is for a person in the web.
  if (
    changes.approval_required &&
    current.approval_required.some((action) => !changes.approval_required?.includes(action)) &&
    ctx.surface !== 'web'
  )
    throw new AppError(
      'forbidden',
      `Narrowing approval_required needs a person signed in to the web interface; an API token cannot. Do it at /orgs/${organizationId}/settings.`,
    );
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (Array.isArray(given.approval_required)) given.approval_required = [...new Set(given.approval_required)];
  if (Array.isArray(given.incident_regimes)) given.incident_regimes = [...new Set(given.incident_regimes)];
  if (Array.isArray(given.risk_acceptance_approver_ids)) {
    given.risk_acceptance_approver_ids = [...new Set(given.risk_acceptance_approver_ids as string[])];
    await checkPeople(ctx, organizationId, given.risk_acceptance_approver_ids as string[]);
  }
  if (given.risk_method) given.risk_method = normalizedMethod(given.risk_method as RiskMethod);
  const next = { ...current, ...given } as OrganizationSettings;
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const key of Object.keys(given) as (keyof OrganizationSettings)[]) {
    if (JSON.stringify(current[key]) === JSON.stringify(next[key])) continue;
    before[key] = current[key];
    after[key] = next[key];
  }
  if (Object.keys(after).length === 0) return current;
  if ('risk_method' in after) await checkScalesFit(ctx, organizationId, next.risk_method);
  const at = ctx.now().toISOString();
  // Strictly later than the previous value, as every write's updated_at.
  const stamp = at > row.updated_at ? at : new Date(Date.parse(row.updated_at) + 1).toISOString();
  const [updated] = await ctx.db.batch([
    ctx.db
      .update(organizations)
      .set({ settings: { ...(row.settings ?? {}), ...next }, updated_at: stamp })
      .where(and(eq(organizations.id, organizationId), eq(organizations.updated_at, row.updated_at)))
      .returning({ id: organizations.id }),
    changeAfterWrite(ctx, {
      tool: 'updateOrganizationSettings',
      kind: 'organization',
      recordId: organizationId,
      organizationId,
      action: 'update',
      before,
      after,
      at,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
    // A new method re-derives every risk's levels (the history row above records the method that changed).
    ...('risk_method' in after ? [levelUpdate(ctx, organizationId, next.risk_method, stamp)] : []),
  ]);
  if ((updated as unknown[]).length === 0)
    throw new AppError('conflict', 'The settings were changed by another request at the same time. Retry.');
  return next;
}

/** The statement that re-derives the levels of the organization's risks, run only if the settings write landed. */
function levelUpdate(ctx: ToolContext, organizationId: string, method: RiskMethod, stamp: string) {
  const high = firstScoreAboveAppetite(method);
  return ctx.db
    .update(risks)
    .set({
      inherent_level: levelCase(method, risks.inherent_score),
      residual_level: levelCase(method, risks.residual_score),
      above_appetite: high === null ? false : sql`${risks.residual_score} >= ${high}`,
    })
    .where(
      and(
        eq(risks.organization_id, organizationId),
        sql`exists (select 1 from ${organizations} where ${organizations.id} = ${organizationId} and ${organizations.updated_at} = ${stamp})`,
      ),
    );
}

/** Refuses a method whose scales are shorter than values risks already hold: they are rescored first. */
async function checkScalesFit(ctx: ToolContext, organizationId: string, method: RiskMethod): Promise<void> {
  const likelihood = method.likelihood.length;
  const impact = method.impact.length;
  const [row] = await ctx.db
    .select({ n: count() })
    .from(risks)
    .where(
      and(
        eq(risks.organization_id, organizationId),
        or(
          sql`max(${risks.inherent_likelihood}, ${risks.residual_likelihood}) > ${likelihood}`,
          sql`max(${risks.inherent_impact}, ${risks.residual_impact}) > ${impact}`,
        ),
      ),
    );
  const n = Number(row?.n ?? 0);
  if (n > 0)
    throw new AppError(
      'invalid_arguments',
      `${n} ${n === 1 ? 'risk has' : 'risks have'} a likelihood above ${likelihood} or an impact above ${impact}, beyond the new scales. Rescore them first (listRisks, updateRisk), then change the method.`,
      [{ path: 'risk_method', message: `Scales shorter than values in use (${n} risks)` }],
    );
}

/** Refuses people who are not of the organization (the same not_found as any unknown id). */
async function checkPeople(ctx: ToolContext, organizationId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await ctx.db
    .select({ id: people.id })
    .from(people)
    .where(and(eq(people.organization_id, organizationId), inArray(people.id, ids)));
  const known = new Set(found.map((row) => row.id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new AppError('not_found', `No person ${missing.join(', ')} in this organization.`, [
      { path: 'risk_acceptance_approver_ids', message: 'Not a person of this organization' },
    ]);
}

/** getOrganizationSettings and updateOrganizationSettings, as handles. */
export const [getSettingsTool, updateSettingsTool] = SETTINGS_TOOLS as [Tool, Tool];
export const settingsTools: readonly Tool[] = SETTINGS_TOOLS;
