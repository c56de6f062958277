// Valid arguments for every tool and one record of every kind, generated from the tool map's specs, over HTTP.
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import type { RegisterKind, RegisterSpec } from '../../src/tools/registers/spec.ts';
import { type Fetcher, ok } from './host.ts';

export type RecordIds = Record<RegisterKind, string>;

export function specOf(kind: string): RegisterSpec {
  const spec = REGISTER_SPECS.find((item) => item.kind === kind);
  if (!spec) throw new Error(`No register spec for ${kind}`);
  return spec;
}

/** The spec's example arguments with its placeholder ids replaced by real ones of the organization. */
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

/** Adds one record of every kind to the organization and returns their ids. */
export async function seedRecords(host: Fetcher, token: string, organizationId: string): Promise<RecordIds> {
  const ids: Partial<RecordIds> = {};
  for (const kind of ORDER) {
    const spec = specOf(kind);
    const result = await ok(host, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
    ids[kind] = (result[spec.key] as { id: string }).id;
  }
  return ids as RecordIds;
}

/** One field each update tool can change, with the value the record must show afterwards. */
export const UPDATE_SAMPLE: Record<RegisterKind, Record<string, unknown>> = {
  vendor: { description: 'updated by the contract' },
  risk: { note: 'updated by the contract' },
  measure: { description: 'updated by the contract' },
  obligation: { area: 'updated by the contract' },
  person: { position: 'updated by the contract' },
  framework: { description: 'updated by the contract' },
  asset: { description: 'updated by the contract' },
  data_classification: { description: 'updated by the contract' },
  nonconformity: { root_cause: 'updated by the contract' },
  continual_improvement: { source: 'updated by the contract' },
  audit: { auditor: 'updated by the contract' },
};

/** Valid arguments for a tool. Delete tools get a record added for them, so the shared ones stay. */
export async function sampleArguments(
  host: Fetcher,
  token: string,
  toolName: string,
  organizationId: string,
  ids: RecordIds,
): Promise<Record<string, unknown>> {
  if (toolName === 'listOrganizations') return {};
  if (toolName === 'getOrganization') return { id: organizationId };
  if (toolName === 'getComplianceSummary') return { organization_id: organizationId };
  if (toolName === 'listChanges')
    return { organization_id: organizationId, filter: { record_id: ids.vendor } };
  if (toolName === 'linkRiskMeasure' || toolName === 'unlinkRiskMeasure') {
    return { risk_id: ids.risk, measure_id: ids.measure };
  }
  for (const spec of REGISTER_SPECS) {
    if (toolName === `list${spec.nounPlural}`) return { organization_id: organizationId };
    if (toolName === `get${spec.noun}`) return { id: ids[spec.kind] };
    if (toolName === `add${spec.noun}`) return exampleArguments(spec, organizationId, ids);
    if (toolName === `update${spec.noun}`) return { id: ids[spec.kind], ...UPDATE_SAMPLE[spec.kind] };
    if (toolName === `delete${spec.noun}`) {
      const added = await ok(host, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
      return { id: (added[spec.key] as { id: string }).id };
    }
  }
  throw new Error(`No sample arguments for ${toolName}: add a case to test/contract/samples.ts`);
}

/**
 * What a successful answer must contain, beyond matching the output schema: the record asked for, the fields
 * written, the organization listed. Returns a list of mismatches (empty = fine).
 */
export function answerMismatches(
  toolName: string,
  args: Record<string, unknown>,
  answer: Record<string, unknown>,
  organizationId: string,
  ids: RecordIds,
): string[] {
  const problems: string[] = [];
  const expectEqual = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  };
  if (toolName === 'listOrganizations') {
    const listed = (answer.organizations as { id: string }[]).map((organization) => organization.id);
    if (!listed.includes(organizationId)) problems.push(`organizations: ${organizationId} missing`);
    return problems;
  }
  if (toolName === 'getOrganization') {
    expectEqual('organization.id', (answer.organization as { id: string }).id, organizationId);
    return problems;
  }
  if (toolName === 'getComplianceSummary') {
    expectEqual('organization_id', answer.organization_id, organizationId);
    return problems;
  }
  if (toolName === 'listChanges') {
    const changes = answer.changes as { record_id: string; organization_id: string; action: string }[];
    expectEqual('first change of the seeded vendor', changes.at(-1)?.action, 'add');
    if (
      changes.some((change) => change.record_id !== ids.vendor || change.organization_id !== organizationId)
    )
      problems.push('a change of another record or organization');
    return problems;
  }
  if (toolName === 'linkRiskMeasure' || toolName === 'unlinkRiskMeasure') {
    expectEqual('risk_id', answer.risk_id, ids.risk);
    const linked = (answer.measure_ids as string[]).includes(ids.measure);
    expectEqual('measure linked', linked, toolName === 'linkRiskMeasure');
    return problems;
  }
  for (const spec of REGISTER_SPECS) {
    const record = answer[spec.key] as Record<string, unknown> | undefined;
    if (toolName === `list${spec.nounPlural}`) {
      const listed = (answer[spec.listKey] as { id: string; organization_id: string }[]) ?? [];
      if (!listed.some((item) => item.id === ids[spec.kind]))
        problems.push(`${spec.listKey}: seeded record missing`);
      if (listed.some((item) => item.organization_id !== organizationId))
        problems.push('a record of another org');
      return problems;
    }
    if (toolName === `get${spec.noun}` || toolName === `delete${spec.noun}`) {
      expectEqual(`${spec.key}.id`, record?.id ?? answer.id, args.id);
      return problems;
    }
    if (toolName === `add${spec.noun}`) {
      expectEqual(`${spec.key}.organization_id`, record?.organization_id, organizationId);
      for (const [field, value] of Object.entries(args)) {
        if (field in (record ?? {}) && typeof value === 'string')
          expectEqual(`${spec.key}.${field}`, record?.[field], value);
      }
      return problems;
    }
    if (toolName === `update${spec.noun}`) {
      expectEqual(`${spec.key}.id`, record?.id, args.id);
      for (const [field, value] of Object.entries(UPDATE_SAMPLE[spec.kind])) {
        expectEqual(`${spec.key}.${field}`, record?.[field], value);
      }
      return problems;
    }
  }
  problems.push(`no expectations for ${toolName}: add a case to test/contract/samples.ts`);
  return problems;
}
