// Tasks on record pages: the tasks linked to a record (a risk's treatment plan, a nonconformity's corrective actions,
// another record's tasks), with their status and due date, and a link that opens a new task already linked to it.

import { REGISTERS } from '../tools/index.ts';
import type { RegisterKind } from '../tools/registers/spec.ts';
import { TASK_RECORD_KINDS } from '../tools/tasks.ts';
import { mayWrite } from './access.ts';
import type { Membership } from './context.ts';
import { DataTable } from './data-table.tsx';
import { valueLabel } from './labels.ts';
import { Badge } from './layout.tsx';
import { registerPageByKind } from './register-pages.ts';
import type { WebCalls } from './tool-calls.ts';

type Row = Record<string, unknown>;

/** Tasks listed on a record page (the register's page lists them all). */
const SHOWN = 50;

/** What a record's tasks are called on its page. */
const SECTION_TITLES: Partial<Record<RegisterKind, string>> = {
  risk: 'Treatment plan',
  nonconformity: 'Corrective actions',
};

export function carriesTasks(kind: RegisterKind): boolean {
  return TASK_RECORD_KINDS.includes(kind);
}

/** The tasks linked to a record, open ones first by due date, for its page. */
export async function tasksOfRecord(calls: WebCalls, organizationId: string, recordId: string) {
  const result = await calls.run(REGISTERS.task.list, {
    organization_id: organizationId,
    filter: { record_id: recordId },
    order_by: { field: 'due_on', direction: 'ASC' },
    size: SHOWN,
  });
  return {
    tasks: (result.tasks as Row[] | undefined) ?? [],
    total: Number(result.total_count ?? 0),
  };
}

export function TasksSection(props: {
  membership: Membership;
  kind: RegisterKind;
  recordId: string;
  tasks: Row[];
  total: number;
}) {
  const { membership, tasks } = props;
  const page = registerPageByKind('task');
  if (!page) return null;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const title = SECTION_TITLES[props.kind] ?? 'Tasks';
  const all = `${base}?${new URLSearchParams({ record_id: props.recordId })}`;
  return (
    <section aria-labelledby="tasks">
      <h2 id="tasks">{title}</h2>
      <DataTable
        items={tasks}
        empty="No tasks yet."
        caption={`${title}: ${props.total} task${props.total === 1 ? '' : 's'}`}
        columns={[
          {
            header: 'Task',
            cell: (task) => (
              <a href={`${base}/${String(task.id)}`} dir="auto">
                {String(task.title)}
              </a>
            ),
          },
          { header: 'Status', cell: (task) => valueLabel(String(task.status)) },
          { header: 'Priority', cell: (task) => valueLabel(String(task.priority)) },
          {
            header: 'Due',
            cell: (task) => (
              <>
                {task.due_on ? String(task.due_on) : <span class="muted">—</span>}{' '}
                {task.overdue === true && <Badge tone="bad">overdue</Badge>}
              </>
            ),
          },
        ]}
      />
      <p>
        {props.total > tasks.length && (
          <>
            <a href={all}>All {props.total} tasks</a>
            {' · '}
          </>
        )}
        {mayWrite(membership) && (
          <a href={`${base}/new?${new URLSearchParams({ record_ids: props.recordId })}`}>Add a task</a>
        )}
      </p>
    </section>
  );
}
