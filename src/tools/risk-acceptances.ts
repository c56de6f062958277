// Risk acceptances: the record that a person with that authority accepted a risk at its residual level, why, and until
// when. Adding one makes the risk ACCEPTED (treatment ACCEPT); revoking or deleting the last current one makes an
// ACCEPTED risk OPEN again; one that runs out leaves the risk ACCEPTED but due (risks.acceptance_status EXPIRED).
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { riskAcceptances, risks } from '../db/schema.ts';
import { changeAfterWrite } from './changes.ts';
import { ownerFilter } from './common-fields.ts';
import { requirePersonInWeb } from './decisions.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText } from './fields.ts';
import { nextUpdatedAt } from './registers/records.ts';
import {
  derived,
  filledOnAdd,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  ruleRefusal,
} from './registers/spec.ts';
import { aboveAppetite, DEFAULT_RISK_METHOD, levelOf } from './risk-method.ts';
import type { ToolContext } from './types.ts';

export const ACCEPTANCE_RECORD_STATUSES = ['CURRENT', 'EXPIRED', 'SUPERSEDED', 'REVOKED'] as const;

/** A later acceptance of the same risk, not revoked, governs instead (written out: a one-table query names columns bare). */
const SUPERSEDED = sql.raw(
  `exists (select 1 from risk_acceptances later where later.risk_id = "risk_acceptances"."risk_id" and later.revoked_on is null and (later.accepted_on > "risk_acceptances"."accepted_on" or (later.accepted_on = "risk_acceptances"."accepted_on" and (later.created_at > "risk_acceptances"."created_at" or (later.created_at = "risk_acceptances"."created_at" and later.id > "risk_acceptances"."id")))))`,
);

/** The record's state on `today`: REVOKED, SUPERSEDED by a later one, EXPIRED, or CURRENT. */
function statusOf(row: Row, today: string): (typeof ACCEPTANCE_RECORD_STATUSES)[number] {
  if (row.revoked_on) return 'REVOKED';
  if (row.superseded === true || row.superseded === 1) return 'SUPERSEDED';
  return String(row.expires_on) < today ? 'EXPIRED' : 'CURRENT';
}

const date = (what: string) => dateSchema.describe(what);

/** The risk as settle read it: an add is written only if the risk still has this status and residual score. */
const RISK_READ = '__risk';

interface RiskRead {
  status: string;
  treatment: string;
  residual_score: number;
  owner_id: string | null;
}

function checkDates(next: Row, current: Row | null, rules: RuleContext): void {
  const today = rules.today;
  if (!current) {
    if (next.revoked_on || next.revocation_reason)
      throw ruleRefusal(
        next.revoked_on ? 'revoked_on' : 'revocation_reason',
        'A new acceptance is not revoked.',
        'Record it without revoked_on and revocation_reason; revoke it later with updateRiskAcceptance.',
      );
    next.accepted_on ??= today;
    if (String(next.accepted_on) > today)
      throw ruleRefusal(
        'accepted_on',
        `accepted_on ${String(next.accepted_on)} is in the future.`,
        'Give the date the approver accepted, today or earlier.',
      );
    if (String(next.expires_on) <= today)
      throw ruleRefusal(
        'expires_on',
        `expires_on ${String(next.expires_on)} is not after today.`,
        'An acceptance runs until a later date: give one, e.g. a year from now.',
      );
    return;
  }
  if (current.revoked_on && 'revoked_on' in rules.given && next.revoked_on !== current.revoked_on)
    throw ruleRefusal(
      'revoked_on',
      'A revoked acceptance stays revoked.',
      'Record a new acceptance with addRiskAcceptance instead.',
    );
  if (next.revoked_on && !current.revoked_on) {
    const revoked = String(next.revoked_on);
    if (revoked > today || revoked < String(current.accepted_on))
      throw ruleRefusal(
        'revoked_on',
        `revoked_on ${revoked} is outside ${String(current.accepted_on)}..${today}.`,
        'Give the date it was revoked: from accepted_on to today.',
      );
    if (!next.revocation_reason)
      throw ruleRefusal(
        'revocation_reason',
        'A revocation needs its reason.',
        'Give revocation_reason in the same call.',
      );
  }
}

/** The checks that read the risk, the settings and the approver: who may accept what. */
async function settleAcceptance(
  ctx: ToolContext,
  next: Row,
  current: Row | null,
  rules?: RuleContext,
): Promise<void> {
  if (current) return;
  if (rules?.settings)
    requirePersonInWeb(
      ctx,
      rules.settings,
      'accepting a risk',
      `/orgs/${String(ctx.organizationId)}/risk-acceptances/new`,
    );
  const method = rules?.settings?.risk_method ?? DEFAULT_RISK_METHOD;
  const [risk] = await ctx.db
    .select({
      status: risks.status,
      treatment: risks.treatment,
      residual_score: risks.residual_score,
      owner_id: risks.owner_id,
      name: risks.name,
    })
    .from(risks)
    .where(eq(risks.id, String(next.risk_id)))
    .limit(1);
  if (!risk) return; // checked as a reference of this organization already
  if (risk.status === 'CLOSED')
    throw ruleRefusal(
      'risk_id',
      'A CLOSED risk is not accepted.',
      'Reopen it (updateRisk status OPEN) first, if it applies again.',
    );
  const approvers = rules?.settings?.risk_acceptance_approver_ids ?? [];
  if (approvers.length > 0 && !approvers.includes(String(next.approver_id)))
    throw ruleRefusal(
      'approver_id',
      'This person may not approve risk acceptances.',
      `Choose one of the approvers in the settings (risk_acceptance_approver_ids: ${approvers.join(', ')}).`,
    );
  const level = levelOf(method, risk.residual_score);
  if (aboveAppetite(method, risk.residual_score)) {
    if (!risk.owner_id)
      throw ruleRefusal(
        'risk_id',
        `The risk's residual level ${level.name} is above the appetite (${method.appetite}) and it has no owner.`,
        'Set its owner_id (updateRisk) first: a risk above the appetite needs one.',
      );
    if (rules?.settings?.independent_risk_acceptance !== false && risk.owner_id === next.approver_id)
      throw ruleRefusal(
        'approver_id',
        `The approver is the risk's owner, and its level ${level.name} is above the appetite (${method.appetite}).`,
        'Choose an approver other than the owner (setting independent_risk_acceptance).',
      );
  }
  next.accepted_level = level.name;
  next.accepted_score = risk.residual_score;
  next[RISK_READ] = risk satisfies RiskRead;
}

/** The risk moves to ACCEPTED, treatment ACCEPT, with its history row; nothing when it is so already. */
function acceptRisk(ctx: ToolContext, next: Row, landed: ReturnType<typeof sql>) {
  const risk = next[RISK_READ] as RiskRead | undefined;
  if (!risk || (risk.status === 'ACCEPTED' && risk.treatment === 'ACCEPT')) return [];
  const at = ctx.now().toISOString();
  const riskId = String(next.risk_id);
  return [
    ctx.db
      .update(risks)
      .set({ status: 'ACCEPTED', treatment: 'ACCEPT', updated_at: nextUpdatedAt(risks.updated_at, at) })
      .where(and(eq(risks.id, riskId), landed)),
    changeAfterWrite(ctx, {
      tool: 'addRiskAcceptance',
      kind: 'risk',
      recordId: riskId,
      organizationId: String(next.organization_id),
      action: 'update',
      before: { status: risk.status, treatment: risk.treatment },
      after: { status: 'ACCEPTED', treatment: 'ACCEPT' },
      at,
    }),
  ];
}

/** An ACCEPTED risk left without a current acceptance (revoked, deleted) is OPEN again, with its history row. */
function reopenUnaccepted(
  ctx: ToolContext,
  riskId: string,
  organizationId: string,
  tool: string,
  landed: ReturnType<typeof sql>,
) {
  const at = ctx.now().toISOString();
  const today = at.slice(0, 10);
  return [
    ctx.db
      .update(risks)
      .set({ status: 'OPEN', updated_at: nextUpdatedAt(risks.updated_at, at) })
      .where(
        and(
          eq(risks.id, riskId),
          eq(risks.status, 'ACCEPTED'),
          sql`(${risks.accepted_until} is null or ${risks.accepted_until} < ${today})`,
          landed,
        ),
      ),
    changeAfterWrite(ctx, {
      tool,
      kind: 'risk',
      recordId: riskId,
      organizationId,
      action: 'update',
      before: { status: 'ACCEPTED' },
      after: { status: 'OPEN' },
      at,
    }),
  ];
}

export const riskAcceptanceSpec: RegisterSpec = {
  kind: 'risk_acceptance',
  prefix: 'rac',
  label: 'risk acceptance',
  labelPlural: 'risk acceptances',
  noun: 'RiskAcceptance',
  nounPlural: 'RiskAcceptances',
  key: 'risk_acceptance',
  listKey: 'risk_acceptances',
  toolset: 'risk_acceptances',
  table: riskAcceptances,
  nameFields: ['accepted_level', 'accepted_on'],
  about:
    'A risk acceptance records who accepted a risk at its residual level, why and until when; it makes the risk ACCEPTED, and the risk comes due when it runs out.',
  fields: {
    risk_id: {
      ...required(idOf('rsk', 'Risk').describe('The risk accepted (`rsk_...`).'), 'risk', {
        label: 'Risk',
        hint: 'The risk accepted at its current residual level.',
      }),
      fixed: true,
      cascade: true,
    },
    approver_id: {
      ...required(
        idOf('per', 'Person').describe('Who approved (`per_...`); above the appetite not the owner.'),
        'person',
        {
          label: 'Approver',
          hint: 'The person with the authority to accept the risk.',
        },
      ),
      fixed: true,
    },
    rationale: {
      ...required(longText(5000, 1).describe('Why the risk is accepted rather than treated.')),
      fixed: true,
    },
    accepted_on: { ...filledOnAdd(date('Day it was accepted (default today, not later).')), fixed: true },
    expires_on: { ...required(date('Day it runs out; later than today.')), fixed: true },
    accepted_level: derived(z.string().describe("The risk's residual level accepted (derived).")),
    accepted_score: derived(z.number().int().describe("The risk's residual score accepted (derived).")),
    revoked_on: optional(date('Day it was revoked (needs revocation_reason); final.'), undefined, {
      label: 'Revoked on',
    }),
    revocation_reason: optional(longText(2000).describe('Why it was revoked.')),
    note: optional(longText(2000).describe('Free-text note.')),
    status: derived(
      caseInsensitiveEnum(ACCEPTANCE_RECORD_STATUSES).describe(
        'CURRENT, EXPIRED, SUPERSEDED (a later one governs) or REVOKED (derived).',
      ),
    ),
  },
  computed: { superseded: SUPERSEDED },
  search: [riskAcceptances.rationale],
  filters: {
    risk_id: filter(idOf('rsk', 'Risk').describe('Only those of this risk.'), (value) =>
      eq(riskAcceptances.risk_id, value),
    ),
    approver_id: ownerFilter(riskAcceptances.approver_id, 'Approver'),
    expires_before: filter(
      date('Only those running out before this day.'),
      (value) => sql`${riskAcceptances.expires_on} < ${value}`,
    ),
    revoked: filter(z.boolean().describe('true: only revoked ones; false: the others.'), (value) =>
      value ? sql`${riskAcceptances.revoked_on} is not null` : sql`${riskAcceptances.revoked_on} is null`,
    ),
  },
  orderFields: {
    expires_on: { column: riskAcceptances.expires_on },
  },
  usesSettings: true,
  prepare: checkDates,
  settle: settleAcceptance,
  writeGuard(next) {
    const risk = next[RISK_READ] as RiskRead | undefined;
    if (!risk) return undefined;
    // The risk still has the residual score accepted and its status: else the acceptance lands nowhere (conflict).
    return sql`exists (select 1 from ${risks} where ${risks.id} = ${String(next.risk_id)} and ${risks.residual_score} = ${risk.residual_score} and ${risks.status} = ${risk.status})`;
  },
  afterAdd: (ctx, _id, next, landed) => acceptRisk(ctx, next, landed),
  afterUpdate(ctx, _id, next, current, landed) {
    if (!next.revoked_on || current.revoked_on) return [];
    return reopenUnaccepted(
      ctx,
      String(next.risk_id),
      String(next.organization_id),
      'updateRiskAcceptance',
      landed,
    );
  },
  present: (row, today) => {
    const { superseded: _superseded, ...rest } = row;
    return { ...rest, status: statusOf(row, today) };
  },
  hints: {
    list: 'Running out: filter.expires_before a date; of one risk: filter.risk_id.',
    add: 'Sets the risk ACCEPTED (treatment ACCEPT) at its current residual level. Above the appetite, the approver is someone other than the person accountable for the risk.',
    get: 'With its approver, rationale, the level accepted, its expiry and its status (CURRENT, EXPIRED, SUPERSEDED, REVOKED).',
    update:
      'Revoke an acceptance: revoked_on with revocation_reason (final; the ACCEPTED risk re-opens). Otherwise only note changes.',
  },
  example: {
    organization_id: 'org_...',
    risk_id: 'rsk_...',
    approver_id: 'per_...',
    rationale: 'Standard contractual clauses signed; the residual risk is within our appetite.',
    accepted_on: '2026-11-02',
    expires_on: '2029-12-31',
  },
};
