// How a register's values look on its pages: badges for states, scores by band, references as links to records.
import type { Child } from 'hono/jsx';
import type { RegisterKind } from '../../tools/index.ts';
import { targetsOf } from '../../tools/registers/spec.ts';
import { valueLabel } from '../labels.ts';
import { Badge, Time } from '../layout.tsx';
import { type RegisterPage, registerPageByKind } from '../register-pages.ts';
import type { NameIndex } from '../tool-calls.ts';

const STATE_TONES: Record<string, 'ok' | 'warn' | 'bad'> = {
  IMPLEMENTED: 'ok',
  COMPLIANT: 'ok',
  CLOSED: 'ok',
  MITIGATED: 'ok',
  COMPLETED: 'ok',
  ACCEPTED: 'ok',
  IN_PROGRESS: 'warn',
  IN_TREATMENT: 'warn',
  PARTIALLY_COMPLIANT: 'warn',
  OPEN: 'bad',
  NON_COMPLIANT: 'bad',
  REJECTED: 'bad',
  HIGH: 'bad',
  MEDIUM: 'warn',
  SECRET: 'bad',
  CONFIDENTIAL: 'warn',
};
const BADGE_FIELDS = new Set([
  'status',
  'state',
  'treatment',
  'classification',
  'priority',
  'kind',
  'type',
  'asset_type',
  'category',
]);

function scoreTone(score: number): 'ok' | 'warn' | 'bad' {
  return score >= 15 ? 'bad' : score >= 8 ? 'warn' : 'ok';
}

/**
 * Which registers a field points into (owner_id -> person, vendor_ids -> vendor, an evidence item's record_ids ->
 * measures, risks, ...); none for a field that holds no reference.
 */
export function refKinds(page: RegisterPage, field: string): readonly RegisterKind[] {
  const spec = page.spec;
  const ref = spec.fields[field]?.ref;
  if (ref) return [ref];
  const relation = spec.relations?.find((item) => item.field === field);
  if (relation) return targetsOf(relation);
  const linked = field.endsWith('_id') ? registerPageByKind(field.slice(0, -3))?.kind : undefined;
  return linked ? [linked] : [];
}

function Reference({ id, names }: { id: string; names: NameIndex }) {
  const found = names.get(id);
  return found ? (
    <a href={found.href} dir="auto">
      {found.name}
    </a>
  ) : (
    <code class="small">{id}</code>
  );
}

export function Value({
  page,
  field,
  value,
  names,
  full,
}: {
  page: RegisterPage;
  field: string;
  value: unknown;
  names: NameIndex;
  full?: boolean;
}): Child {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (refKinds(page, field).length > 0) {
    const ids = Array.isArray(value) ? value.map(String) : [String(value)];
    if (ids.length === 0) return <span class="muted">—</span>;
    return (
      <>
        {ids.map((id, index) => (
          <>
            {index > 0 && ', '}
            <Reference id={id} names={names} />
          </>
        ))}
      </>
    );
  }
  if (field === 'overdue')
    return value === true ? <Badge tone="bad">overdue</Badge> : <span class="muted">no</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value))
    return value.length === 0 ? <span class="muted">—</span> : value.map(String).join(', ');
  if (typeof value === 'number')
    return field.endsWith('_score') ? <Badge tone={scoreTone(value)}>{value}</Badge> : String(value);
  const textValue = String(value);
  if (BADGE_FIELDS.has(field)) return <Badge tone={STATE_TONES[textValue]}>{valueLabel(textValue)}</Badge>;
  if (field.endsWith('_url') && /^https?:\/\//i.test(textValue)) {
    return (
      <a href={textValue} rel="noopener noreferrer nofollow">
        {full ? textValue : textValue.replace(/^https?:\/\//i, '').replace(/\/$/, '')}
      </a>
    );
  }
  if (field === 'created_at' || field === 'updated_at') return <Time iso={textValue} />;
  // Text a person typed, isolated so a right-to-left name does not reorder the words around it.
  return <bdi>{!full && textValue.length > 140 ? `${textValue.slice(0, 137)}…` : textValue}</bdi>;
}
