// Records of every kind and valid sample arguments for every tool, generated from the tool map's specs.
import type { Runtime } from '../src/runtime.ts';
import { REGISTER_SPECS } from '../src/tools/index.ts';
import type { RegisterKind, RegisterSpec } from '../src/tools/register.ts';
import { ok } from './helpers.ts';

export type RecordIds = Record<RegisterKind, string>;

/** The spec's example arguments with the placeholder ids replaced by real ones of the organization. */
export function exampleArguments(
  spec: RegisterSpec,
  organizationId: string,
  ids: Partial<RecordIds>,
): Record<string, unknown> {
  const args: Record<string, unknown> = { ...spec.example, organization_id: organizationId };
  if (spec.kind === 'audit') args.framework_id = ids.framework;
  // People's emails are unique within an organization.
  if (spec.kind === 'person') args.email = `person-${crypto.randomUUID()}@example.com`;
  return args;
}

// Frameworks before audits, which need one.
const ORDER: RegisterKind[] = [
  'person',
  'vendor',
  'risk',
  'measure',
  'obligation',
  'framework',
  'asset',
  'data_classification',
  'audit',
  'nonconformity',
  'continual_improvement',
];

export function specOf(kind: string): RegisterSpec {
  const spec = REGISTER_SPECS.find((item) => item.kind === kind);
  if (!spec) throw new Error(`no spec ${kind}`);
  return spec;
}

/** Adds one record of every kind to the organization and returns their ids. */
export async function seedRecords(
  runtime: Runtime,
  token: string,
  organizationId: string,
): Promise<RecordIds> {
  const ids: Partial<RecordIds> = {};
  for (const kind of ORDER) {
    const spec = specOf(kind);
    const result = await ok(runtime, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
    ids[kind] = (result[spec.key] as { id: string }).id;
  }
  return ids as RecordIds;
}

/** One field each update tool can safely change. */
export const UPDATE_SAMPLE: Record<RegisterKind, Record<string, unknown>> = {
  vendor: { description: 'updated' },
  risk: { note: 'updated' },
  measure: { description: 'updated' },
  obligation: { area: 'updated' },
  person: { position: 'updated' },
  framework: { description: 'updated' },
  asset: { description: 'updated' },
  data_classification: { description: 'updated' },
  nonconformity: { root_cause: 'updated' },
  continual_improvement: { source: 'updated' },
  audit: { auditor: 'updated' },
};

/**
 * Valid arguments for a tool. For delete tools `fresh` must add a new record first (deleting the shared one
 * would break later calls), so it is async.
 */
export async function sampleArguments(
  runtime: Runtime,
  token: string,
  toolName: string,
  organizationId: string,
  ids: RecordIds,
): Promise<Record<string, unknown>> {
  if (toolName === 'listOrganizations') return {};
  if (toolName === 'getOrganization') return { id: organizationId };
  if (toolName === 'getComplianceSummary') return { organization_id: organizationId };
  if (toolName === 'linkRiskMeasure' || toolName === 'unlinkRiskMeasure') {
    return { risk_id: ids.risk, measure_id: ids.measure };
  }
  for (const spec of REGISTER_SPECS) {
    if (toolName === `list${spec.nounPlural}`) return { organization_id: organizationId };
    if (toolName === `get${spec.noun}`) return { id: ids[spec.kind] };
    if (toolName === `add${spec.noun}`) return exampleArguments(spec, organizationId, ids);
    if (toolName === `update${spec.noun}`) return { id: ids[spec.kind], ...UPDATE_SAMPLE[spec.kind] };
    if (toolName === `delete${spec.noun}`) {
      const added = await ok(runtime, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
      return { id: (added[spec.key] as { id: string }).id };
    }
  }
  throw new Error(`No sample arguments for ${toolName}`);
}
