// An organization's settings: one typed object (each setting with its default), read by the features that follow
// them and changed by OWNER and ADMIN through updateOrganizationSettings, with a history row.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { roleIn } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { organizations } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { requireOrganization } from './access.ts';
import { changeAfterWrite } from './changes.ts';
import { caseInsensitiveEnum, idOf } from './fields.ts';
import { REGIMES, type Regime } from './incidents/clocks.ts';
import { isTimeZone } from './overdue.ts';
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
}

export const DEFAULT_SETTINGS: OrganizationSettings = {
  time_zone: 'UTC',
  incident_regimes: ['GDPR'],
  privacy_contact: null,
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

const settingsOutput = z
  .object({
    time_zone: z.string().describe('IANA time zone of the organization.'),
    incident_regimes: z.array(z.enum(REGIMES)).describe('Regimes whose incident clocks apply.'),
    privacy_contact: z.string().nullable().describe('Controller and DPO contact for the Art. 30 record.'),
  })
  .describe("The organization's settings.");

/** The stored settings over the defaults; a stored value that no longer parses falls back to its default. */
export function settingsFrom(stored: unknown): OrganizationSettings {
  const value = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const zone = timeZone.safeParse(value.time_zone);
  const listed = regimes.safeParse(value.incident_regimes);
  const contact = privacyContact.safeParse(value.privacy_contact);
  return {
    time_zone: zone.success ? zone.data : DEFAULT_SETTINGS.time_zone,
    incident_regimes: listed.success ? [...new Set(listed.data)] : [...DEFAULT_SETTINGS.incident_regimes],
    privacy_contact: contact.success ? contact.data?.trim() || null : null,
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

/** getOrganizationSettings: the handle pages use. */
export const getSettingsTool: Tool = defineTool({
  name: 'getOrganizationSettings',
  title: 'Get organization settings',
  description:
    "The organization's settings: time zone, the regimes (GDPR, NIS2, DORA) whose incident clocks apply, and the privacy contact of the Art. 30 record.",
  scope: 'read',
  toolset: 'settings',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({ organization_id: idOf('org', 'Organization').describe('Organization id.') }),
  output: z.object({ settings: settingsOutput }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    return { settings: await readSettings(ctx.db, input.organization_id) };
  },
});

/** updateOrganizationSettings. */
export const updateSettingsTool: Tool = defineTool({
  name: 'updateOrganizationSettings',
  title: 'Update organization settings',
  description:
    "Change the organization's settings (OWNER or ADMIN): only the settings given change. Changing the regimes or time zone recomputes every incident's clocks.",
  scope: 'write',
  toolset: 'settings',
  annotations: UPDATE_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').describe('Organization id.'),
    time_zone: timeZone.optional(),
    incident_regimes: regimes.optional(),
    privacy_contact: privacyContact.optional(),
  }),
  output: z.object({ settings: settingsOutput }),
  async run(ctx, input) {
    const { organization_id, ...changes } = input;
    requireOrganization(ctx, organization_id, 'write');
    if (!SETTING_ROLES.has(roleIn(ctx.principal, organization_id) ?? ''))
      throw new AppError('forbidden', 'Only an OWNER or ADMIN of the organization changes its settings.');
    return { settings: await writeSettings(ctx, organization_id, changes) };
  },
});

export const settingsTools: Tool[] = [getSettingsTool, updateSettingsTool];

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
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (Array.isArray(given.incident_regimes)) given.incident_regimes = [...new Set(given.incident_regimes)];
  const next = { ...current, ...given } as OrganizationSettings;
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const key of Object.keys(given) as (keyof OrganizationSettings)[]) {
    if (JSON.stringify(current[key]) === JSON.stringify(next[key])) continue;
    before[key] = current[key];
    after[key] = next[key];
  }
  if (Object.keys(after).length === 0) return current;
  const at = ctx.now().toISOString();
  const [updated] = await ctx.db.batch([
    ctx.db
      .update(organizations)
      .set({
        settings: { ...(row.settings ?? {}), ...next },
        // Strictly later than the previous value, as every write's updated_at.
        updated_at: at > row.updated_at ? at : new Date(Date.parse(row.updated_at) + 1).toISOString(),
      })
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
  ]);
  if ((updated as unknown[]).length === 0)
    throw new AppError('conflict', 'The settings were changed by another request at the same time. Retry.');
  return next;
}
