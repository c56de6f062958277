// Token-use monitoring views: calls per day (an SVG chart with a table behind it) and the list of recent calls.

import { TOOLS } from '../tools/index.ts';
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
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="num">
                Calls
              </th>
              <th scope="col" class="num">
                Errors
              </th>
            </tr>
          </thead>
          <tbody>
            {days
              .filter((day) => day.calls > 0)
              .map((day) => (
                <tr>
                  <td>{day.day}</td>
                  <td class="num">{day.calls}</td>
                  <td class="num">{day.errors}</td>
                </tr>
              ))}
          </tbody>
        </table>
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
  if (calls.length === 0) {
    return (
      <div class="table-wrap">
        <p class="empty">No tool calls yet.</p>
      </div>
    );
  }
  return (
    <div class="table-wrap">
      <table>
        <caption>
          The {calls.length} most recent of {total} calls.
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Surface</th>
            <th scope="col">Tool</th>
            {show.organization && <th scope="col">Organization</th>}
            {show.token && <th scope="col">Who</th>}
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => (
            <tr>
              <td>
                <Time iso={call.created_at} />
              </td>
              <td>{SURFACE_LABELS[call.surface] ?? call.surface}</td>
              <td>
                <code>{call.tool}</code>
                <ChangesOf call={call} />
              </td>
              {show.organization && <td>{call.organization_name ?? <span class="muted">—</span>}</td>}
              {show.token && (
                <td>
                  {call.user_email ?? 'unknown user'}
                  <br />
                  <span class="small muted">
                    {call.surface === 'web' ? 'web session' : (call.token_name ?? call.token_id)}
                  </span>
                </td>
              )}
              <td>
                {call.outcome === 'ok' ? (
                  <Badge tone="ok">ok</Badge>
                ) : (
                  <Badge tone="bad">{call.outcome}</Badge>
                )}
              </td>
              <td class="num">{call.duration_ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
