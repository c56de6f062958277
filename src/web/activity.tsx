// Token-use monitoring views: calls per day (an SVG chart with a table behind it) and the list of recent calls.

import { TOOLS } from '../tools/index.ts';
import { isLinkCall } from '../tools/questionnaires/attachments.ts';
import { type Column, DataTable } from './data-table.tsx';
import { Badge, Time } from './layout.tsx';
import type { CallRow, DayCount } from './queries.ts';

export const ACTIVITY_DAYS = 30;

export function activitySince(now: Date): Date {
  const start = new Date(now.getTime() - (ACTIVITY_DAYS - 1) * 86_400_000);
  return new Date(`${start.toISOString().slice(0, 10)}T00:00:00.000Z`);
}

/** Every day of the window, zeros included, oldest first. */
function fillDays(perDay: DayCount[], now: Date): DayCount[] {
  const byDay = new Map(perDay.map((row) => [row.day, row]));
  const since = activitySince(now).getTime();
  return Array.from({ length: ACTIVITY_DAYS }, (_, index) => {
    const day = new Date(since + index * 86_400_000).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, calls: 0, errors: 0 };
  });
}

const SURFACE_LABELS: Record<CallRow['surface'], string> = {
  mcp: 'MCP',
  direct: 'HTTP (direct)',
  web: 'Web',
  cli: 'CLI',
};

export function CallsPerDay({ perDay, now, label }: { perDay: DayCount[]; now: Date; label: string }) {
  const days = fillDays(perDay, now);
  const max = Math.max(1, ...days.map((day) => day.calls));
  const total = days.reduce((sum, day) => sum + day.calls, 0);
  const width = 720;
  const height = 140;
  const chartHeight = 110;
  const slot = width / days.length;
  const barWidth = Math.max(2, slot - 4);
  const scale = (value: number) => Math.round((value / max) * (chartHeight - 10));
  return (
    <figure class="card">
      <svg
        class="chart"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${label}: ${total} calls in the last ${ACTIVITY_DAYS} days, at most ${max} on one day.`}
      >
        {days.map((day, index) => {
          const x = Math.round(index * slot + 2);
          const barHeight = scale(day.calls);
          const errorHeight = scale(day.errors);
          return (
            <g>
              <title>{`${day.day}: ${day.calls} calls, ${day.errors} errors`}</title>
              <rect class="bar" x={x} y={chartHeight - barHeight} width={barWidth} height={barHeight} />
              {errorHeight > 0 && (
                <rect
                  class="bar errors"
                  x={x}
                  y={chartHeight - errorHeight}
                  width={barWidth}
                  height={errorHeight}
                />
              )}
              {index % 5 === 0 && (
                <text x={x} y={height - 12}>
                  {day.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="small muted">
        Calls per day (UTC), last {ACTIVITY_DAYS} days: {total} in all; failed calls in red.
      </figcaption>
      <details>
        <summary>Calls per day as a table</summary>
        <DataTable
          items={days.filter((day) => day.calls > 0)}
          empty="No calls in these days."
          columns={[
            { header: 'Day', cell: (day) => day.day },
            { header: 'Calls', class: 'num', cell: (day) => day.calls },
            { header: 'Errors', class: 'num', cell: (day) => day.errors },
          ]}
        />
      </details>
    </figure>
  );
}

/** A successful write links to what it changed in the history (the rows carrying its call id). */
function ChangesOf({ call }: { call: CallRow }) {
  if (call.outcome !== 'ok' || !call.call_id || !call.organization_id) return null;
  if (TOOLS.get(call.tool)?.scope !== 'write') return null;
  return (
    <>
      <br />
      <a class="small" href={`/orgs/${call.organization_id}/history?call_id=${call.call_id}`}>
        What it changed
      </a>
    </>
  );
}

export function RecentCalls({
  calls,
  total,
  show,
}: {
  calls: CallRow[];
  total: number;
  show: { token?: boolean; organization?: boolean };
}) {
  const columns: Column<CallRow>[] = [
    { header: 'Time', cell: (call) => <Time iso={call.created_at} /> },
    { header: 'Surface', cell: (call) => SURFACE_LABELS[call.surface] ?? call.surface },
    {
      header: 'Tool',
      cell: (call) => (
        <>
          <code>{call.tool}</code>
          <ChangesOf call={call} />
        </>
      ),
    },
  ];
  if (show.organization)
    columns.push({
      header: 'Organization',
      cell: (call) => call.organization_name ?? <span class="muted">—</span>,
    });
  if (show.token)
    columns.push({
      header: 'Who',
      cell: (call) => (
        <>
          {call.user_email ?? (isLinkCall(call) ? "vendor's contact" : 'unknown user')}
          <br />
          <span class="small muted">
            {isLinkCall(call)
              ? `questionnaire link (${call.token_id})`
              : call.surface === 'web'
                ? 'web session'
                : (call.token_name ?? call.token_id)}
          </span>
        </>
      ),
    });
  columns.push(
    {
      header: 'Outcome',
      cell: (call) =>
        call.outcome === 'ok' ? <Badge tone="ok">ok</Badge> : <Badge tone="bad">{call.outcome}</Badge>,
    },
    { header: 'Duration', class: 'num', cell: (call) => `${call.duration_ms} ms` },
  );
  return (
    <DataTable
      items={calls}
      columns={columns}
      empty="No tool calls yet."
      caption={`The ${calls.length} most recent of ${total} calls.`}
      captionShown
    />
  );
}
