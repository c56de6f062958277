// Organization tools: the organizations the token reaches, with the holder's role in each.
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { ROLES, roleIn } from '../auth/principal.ts';
import { organizations } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { reachableOrganizationIds, requireOrganization } from './access.ts';
import { cursorSchema, idOf, PAGE_SIZE, sizeSchema, timestampSchema } from './fields.ts';
import { registerIdKind } from './id-kinds.ts';
import { afterAscending, decodeCursor, encodeCursor } from './pagination.ts';
import { defineTool, READ_ANNOTATIONS, RECORD_SCHEMAS, type Tool } from './types.ts';

const organizationRecord = z
  .object({
    id: z.string().describe('Organization id (`org_...`); pass it as organization_id to the other tools.'),
    name: z.string().describe('Organization name.'),
    description: z.string().nullable().describe('Description, if any.'),
    role: z
      .enum(ROLES as [string, ...string[]])
      .describe('Your role there: OWNER, ADMIN, EDITOR (can write) or VIEWER (read only).'),
    created_at: timestampSchema.describe('When it was created.'),
    updated_at: timestampSchema.describe('When it was last changed.'),
  })
  .describe('An organization.');
RECORD_SCHEMAS.set(organizationRecord, { label: 'organization', spelledOutIn: 'getOrganization' });

/** The columns an organization record shows (its settings have their own tool, getOrganizationSettings). */
const RECORD_COLUMNS = {
  id: organizations.id,
  name: organizations.name,
  description: organizations.description,
  created_at: organizations.created_at,
  updated_at: organizations.updated_at,
};

/** The list tool's name, which its cursors carry. */
const LIST_ORGANIZATIONS = 'listOrganizations';

export const organizationTools: Tool[] = [
  defineTool({
    name: LIST_ORGANIZATIONS,
    title: 'List organizations',
    description:
      'List the organizations this token can access, with your role in each. Call it first: the other tools need an organization_id from here.',
    scope: 'read',
    toolset: 'core',
    annotations: READ_ANNOTATIONS,
    input: z.strictObject({
      size: sizeSchema.optional().describe('Default 20.'),
      cursor: cursorSchema.optional().describe('From next_cursor.'),
    }),
    output: z.object({
      organizations: z.array(organizationRecord).describe('This page of organizations.'),
      next_cursor: z.string().nullable().describe('Cursor of the next page, or null on the last page.'),
      total_count: z.number().int().nonnegative().describe('Number of organizations this token can access.'),
    }),
    async run(ctx, input) {
      const ids = reachableOrganizationIds(ctx);
      const size = input.size ?? PAGE_SIZE.default;
      if (ids.length === 0) return { organizations: [], next_cursor: null, total_count: 0 };
      const reachable = inArray(organizations.id, ids);
      const cursor = input.cursor ? decodeCursor(input.cursor, LIST_ORGANIZATIONS, 'name', 'ASC') : null;
      const after = afterAscending(organizations.name, organizations.id, cursor);
      const [rows, totals] = await ctx.db.batch([
        ctx.db
          .select(RECORD_COLUMNS)
          .from(organizations)
          .where(and(reachable, after))
          .orderBy(asc(organizations.name), asc(organizations.id))
          .limit(size + 1),
        ctx.db.select({ total: count() }).from(organizations).where(reachable),
      ]);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        organizations: page.map((row) => ({ ...row, role: roleIn(ctx.principal, row.id) ?? 'VIEWER' })),
        next_cursor:
          rows.length > size && last
            ? encodeCursor({ l: LIST_ORGANIZATIONS, f: 'name', d: 'ASC', v: last.name, i: last.id })
            : null,
        total_count: totals[0]?.total ?? 0,
      };
    },
  }),
  defineTool({
    name: 'getOrganization',
    title: 'Get organization',
    description: 'Get one organization by id, with your role in it.',
    scope: 'read',
    toolset: 'core',
    annotations: READ_ANNOTATIONS,
    input: z.strictObject({ id: idOf('org', 'Organization').describe('Organization id (`org_...`).') }),
    output: z.object({ organization: organizationRecord }),
    async run(ctx, input) {
      requireOrganization(ctx, input.id, 'read');
      const [row] = await ctx.db
        .select(RECORD_COLUMNS)
        .from(organizations)
        .where(eq(organizations.id, input.id))
        .limit(1);
      if (!row) throw notFound('Organization');
      return { organization: { ...row, role: roleIn(ctx.principal, row.id) ?? 'VIEWER' } };
    },
  }),
];

registerIdKind('org', {
  label: 'organization',
  plural: 'organizations',
  read: 'getOrganization',
  list: LIST_ORGANIZATIONS,
});
