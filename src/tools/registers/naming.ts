// How people name registers and records outside the tools: a register's URL segment ("data-subject-requests") and
// what a person calls a record. The web's pages and the notifications' links both read them from here.

/** A register's URL segment: its plural label in lower case, spaces as hyphens ("continual-improvements"). */
export function registerSlug(spec: { labelPlural: string }): string {
  return spec.labelPlural.toLowerCase().replace(/\s+/g, '-');
}

/** The web page of a record: /orgs/<organization>/<register slug>/<id>. */
export function recordPath(organizationId: string, spec: { labelPlural: string }, recordId: string): string {
  return `/orgs/${organizationId}/${registerSlug(spec)}/${recordId}`;
}

/**
 * The fields that name a record, the first one it has winning (after a requirement's reference and title): the web's
 * displayName and the `labels` the tools answer (src/tools/registers/records.ts) read the same list.
 */
export const NAME_FIELDS = [
  'name',
  'full_name',
  'reference_id',
  'requirement',
  'title',
  'reference',
  'recipient',
  'action',
] as const;

/** What a person calls a record: its name, full name, reference or requirement, else its id. */
export function displayName(record: Record<string, unknown>): string {
  // A framework's requirement: its reference code and title ("A.5.15 Access control").
  if (typeof record.reference === 'string' && typeof record.title === 'string')
    return `${record.reference} ${record.title}`;
  for (const key of NAME_FIELDS) {
    const value = record[key];
    if (typeof value === 'string' && value) return value;
  }
  return String(record.id);
}
