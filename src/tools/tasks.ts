// Tasks: work to do by a date, owned by a person and assigned to an account of the organization (a risk's treatment
// plan, a nonconformity's corrective actions), with a status workflow and a priority.
import { and, eq, isNotNull, lt } from 'drizzle-orm';
import { memberships, taskRecords, tasks } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { ID_PREFIXES } from '../ids.ts';
import { descriptionField, linkFilter, ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum, dateSchema, idOf, idOfAny, shortText } from './fields.ts';
import { isOverdue, overdueFilter, overdueOutput } from './overdue.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterKind,
  type RegisterSpec,
  type Row,
  required,
  withDefault,
} from './registers/spec.ts';
import { PRIORITIES, TASK_STATUSES, TASK_TRANSITIONS } from './states.ts';
import type { ToolContext } from './types.ts';

/** A task is done with once DONE or CANCELLED: it is never overdue then. */
export const TASK_ENDED = ['DONE', 'CANCELLED'] as const;

const status = caseInsensitiveEnum(TASK_STATUSES).describe(
  'TODO, IN_PROGRESS, then DONE or CANCELLED; DONE or CANCELLED only reopen to TODO.',
);
const priority = caseInsensitiveEnum(PRIORITIES).describe('Priority (default MEDIUM).');
const assignee = () => idOf('usr', 'User');

/** The registers a task may be about. */
export const TASK_RECORD_KINDS: readonly RegisterKind[] = [
  'risk',
  'nonconformity',
  'measure',
  'vendor',
  'audit',
  'obligation',
  'requirement',
  'asset',
];
const linkedRecord = () =>
  idOfAny(
    TASK_RECORD_KINDS.map((kind) => ID_PREFIXES[kind]),
    'record',
  );

/** The assignee must be an account of the task's organization; any other answers as a missing user. */
async function checkAssignee(ctx: ToolContext, next: Row, current: Row | null): Promise<void> {
  const userId = next.assignee_user_id;
  if (typeof userId !== 'string' || userId === current?.assignee_user_id) return;
  const organizationId = ctx.organizationId ?? String(current?.organization_id);
  const [member] = await ctx.db
    .select({ user: memberships.user_id })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)))
    .limit(1);
  if (!member) throw notFound('User');
}

export const taskSpec: RegisterSpec = {
  kind: 'task',
  prefix: 'tsk',
  label: 'task',
  labelPlural: 'tasks',
  noun: 'Task',
  nounPlural: 'Tasks',
  key: 'task',
  listKey: 'tasks',
  table: tasks,
  nameFields: ['title'],
  about:
    'A task is dated work owned by a person and assigned to an account, e.g. a risk treatment or corrective action.',
  fields: {
    title: required(shortText().describe('Title, e.g. "Roll out MFA to contractors".')),
    description: descriptionField('task'),
    owner_id: ownerField(),
    assignee_user_id: optional(assignee().describe('Account doing it (`usr_...`), a member.'), undefined, {
      label: 'Assignee',
      hint: 'The member of the organization who does it.',
    }),
    due_on: optional(dateSchema.describe('Due date.'), undefined, { label: 'Due on' }),
    status: withDefault(status, 'TODO'),
    priority: withDefault(priority, 'MEDIUM'),
    overdue: derived(overdueOutput(TASK_ENDED)),
  },
  relations: [
    {
      field: 'record_ids',
      table: taskRecords,
      ownerColumn: taskRecords.task_id,
      targetColumn: taskRecords.record_id,
      organizationColumn: taskRecords.organization_id,
      target: TASK_RECORD_KINDS,
      writable: true,
      description: 'Records it is about: risks, nonconformities, measures, vendors, audits, ....',
      label: 'Linked records',
      hint: 'A risk it treats, a nonconformity it corrects, ...',
    },
  ],
  search: [tasks.title, tasks.description],
  filters: {
    status: enumFilter(status, tasks.status, 'Any of these statuses.'),
    owner_id: ownerFilter(tasks.owner_id),
    assignee_user_id: filter(assignee().describe('Assignee (`usr_...`).'), (value) =>
      eq(tasks.assignee_user_id, value),
    ),
    due_before: filter(dateSchema.describe('Only those due before this date.'), (value) =>
      and(isNotNull(tasks.due_on), lt(tasks.due_on, value)),
    ),
    overdue: overdueFilter(tasks.due_on, tasks.status, TASK_ENDED),
    record_id: linkFilter(
      { ownerId: tasks.id, owner: taskRecords.task_id, target: taskRecords.record_id },
      linkedRecord().describe('Only those linked to this record.'),
    ),
  },
  orderFields: {
    title: { column: tasks.title },
    due_on: { column: tasks.due_on, nullable: true },
  },
  transitions: { status: TASK_TRANSITIONS },
  settle: checkAssignee,
  present: (row, today) => ({ ...row, overdue: isOverdue(row, 'due_on', 'status', TASK_ENDED, today) }),
  toolset: 'tasks',
  hints: {
    list: 'Late ones: filter.overdue = true; mine: myWork.',
    add: 'Status defaults to TODO, priority to MEDIUM.',
  },
  example: {
    organization_id: 'org_...',
    title: 'Roll out MFA to contractors',
    due_on: '2026-12-15',
    priority: 'HIGH',
  },
};
