// An incident page's regulatory clocks: each notification that applies, when it is due in the organization's time
// zone, how many hours are left or that it was missed, and a link that records the notice (which stops the clock).

import { mayWrite } from '../access.ts';
import type { Membership } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { valueLabel } from '../labels.ts';
import { Badge } from '../layout.tsx';
import { registerPageByKind } from '../register-pages.ts';

interface Clock {
  regime: string;
  stage: string;
  title: string;
  source: string;
  due_local: string | null;
  hours_left: number | null;
  sent_at: string | null;
  state: 'WAITING' | 'RUNNING' | 'MISSED' | 'MET' | 'LATE';
  basis: string;
}

const TONE = { WAITING: undefined, RUNNING: 'warn', MISSED: 'bad', MET: 'ok', LATE: 'bad' } as const;

/** "in 22 h", "31 h late", or the time it was sent. */
function timing(clock: Clock): string {
  if (clock.sent_at) return `sent ${clock.sent_at.slice(0, 16).replace('T', ' ')} UTC`;
  if (clock.hours_left === null) return clock.due_local ? '' : clock.basis;
  return clock.hours_left >= 0 ? `${clock.hours_left} h left` : `${-clock.hours_left} h late`;
}

export function IncidentClocks(props: {
  membership: Membership;
  incidentId: string;
  clocks: Clock[];
  timeZone: string;
}) {
  const { membership, clocks } = props;
  const notices = registerPageByKind('incident_notification');
  const record = (clock: Clock) =>
    notices &&
    `/orgs/${membership.organizationId}/${notices.slug}/new?${new URLSearchParams({
      incident_id: props.incidentId,
      regime: clock.regime,
      stage: clock.stage,
    })}`;
  return (
    <section aria-labelledby="clocks">
      <h2 id="clocks">Notification deadlines</h2>
      <DataTable
        items={clocks}
        empty="No notification clock applies: it is not a personal data breach at risk, a significant NIS2 incident or a major DORA incident, or the organization does not follow those regimes (Settings)."
        caption={`Notification deadlines, in ${props.timeZone}`}
        columns={[
          { header: 'Regime', cell: (clock) => clock.regime },
          {
            header: 'What is due',
            cell: (clock) => (
              <>
                {clock.title}
                <br />
                <span class="small muted">{clock.basis}</span>
              </>
            ),
          },
          {
            header: `Deadline (${props.timeZone})`,
            cell: (clock) =>
              clock.due_local ? clock.due_local.replace(` ${props.timeZone}`, '') : 'without undue delay',
          },
          {
            header: 'State',
            cell: (clock) => (
              <>
                <Badge tone={TONE[clock.state]}>{valueLabel(clock.state)}</Badge> {timing(clock)}
                {!clock.sent_at && clock.state !== 'WAITING' && mayWrite(membership) && record(clock) && (
                  <>
                    {' '}
                    <a href={record(clock) as string}>Record the notice</a>
                  </>
                )}
              </>
            ),
          },
          { header: 'Source', class: 'small', cell: (clock) => clock.source },
        ]}
      />
    </section>
  );
}
