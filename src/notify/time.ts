// The time zones offered in the settings form; dates and hours in a zone are src/tools/overdue.ts's.

/** The time zones offered in the settings form. */
export function timeZoneNames(): string[] {
  const names = Intl.supportedValuesOf?.('timeZone') ?? [];
  return names.includes('UTC') ? names : ['UTC', ...names];
}
