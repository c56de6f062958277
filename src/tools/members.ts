// listMembers: the accounts of an organization (who signs in, with a role), for assigning tasks; each with the person
// of the register who has the same email, since owners are people and assignees are accounts.
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ROLES } from '../auth/principal.ts';
import { memberships, people, users } from '../db/schema.ts';
import { requireOrganization } from './access.ts';
import { cursorSchema, idOf, PAGE_SIZE, sizeSchema } from './fields.ts';
import { registerIdKind } from './id-kinds.ts';
import { afterAscending, decodeCursor, encodeCursor } from './pagination.ts';
import { defineTool, READ_ANNOTATIONS } from './types.ts';

const LIST_MEMBERS = 'listMembers';

const memberRecord = z
  .object({
    user_id: z.string().describe('Account id (`usr_...`): pass it as assignee_user_id.'),
    name: z.string().nullable().describe('Display name, if set.'),
    email: z.string().describe('Sign-in email.'),
    role: z.enum(ROLES as [string, ...string[]]).describe('OWNER, ADMIN, EDITOR or VIEWER.'),
    person_id: z
      .string()
      .nullable()
      .describe('The person of the register with the same email (`per_...`), for owner_id; null if none.'),
  })
  .describe('A member.');

export const listMembersTool = defineTool({
  name: LIST_MEMBERS,
  title: 'List members',
  description:
    "List an organization's members: the user accounts that sign in, with their role, to assign tasks to (assignee_user_id takes usr_ ids). Owners of records are people of the register (listPeople); person_id links the two by email.",
  scope: 'read',
  toolset: 'core',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  }),
  output: z.object({
    members: z.array(memberRecord).describe('This page, by email.'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    total_count: z.number().int().nonnegative().describe('Members of the organization.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const size = input.size ?? PAGE_SIZE.default;
    const cursor = input.cursor ? decodeCursor(input.cursor, LIST_MEMBERS, 'email', 'ASC') : null;
    const ofOrganization = eq(memberships.organization_id, input.organization_id);
    const after = afterAscending(users.email, users.id, cursor);
    const [rows, totals] = await ctx.db.batch([
      ctx.db
        .select({
          user_id: users.id,
          name: users.name,
          email: users.email,
          role: memberships.role,
          person_id: sql<
            string | null
          >`(select ${people.id} from ${people} where ${people.organization_id} = ${memberships.organization_id} and ${people.email} = ${users.email})`,
        })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.user_id))
        .where(and(ofOrganization, after))
        .orderBy(asc(users.email), asc(users.id))
        .limit(size + 1),
      ctx.db.select({ total: count() }).from(memberships).where(ofOrganization),
    ]);
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return {
      members: page,
      next_cursor:
        rows.length > size && last
          ? encodeCursor({ l: LIST_MEMBERS, f: 'email', d: 'ASC', v: last.email, i: last.user_id })
          : null,
      total_count: totals[0]?.total ?? 0,
    };
  },
});

registerIdKind('usr', {
  label: 'account',
  plural: 'accounts',
  list: listMembersTool.name,
  note: 'the account of a member, who signs in',
});
