// Field specs that several registers share (owner, name, description).

import { exists, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { z } from 'zod';
import type { IdPrefix } from '../ids.ts';
import { idOf, longText, shortText } from './fields.ts';
import { personCondition, personRefSchema } from './people-refs.ts';
import {
  type FilterLead,
  type FilterSpec,
  filter,
  optional,
  required,
  sparseMatches,
} from './registers/spec.ts';

export const ownerField = (role = 'Owner', hint = 'The person accountable for it.') =>
  optional(personRefSchema(role), 'person', { label: role, hint });

export const nameField = (example: string) => required(shortText().describe(`Name, e.g. "${example}".`));

export const descriptionField = (what: string) =>
  optional(longText().describe(`Free-text description of the ${what}.`));

/** A link table's columns: this register's id (`ownerId`), the link's column holding it (`owner`), the other (`target`). */
export interface Link {
  ownerId: SQLiteColumn;
  owner: SQLiteColumn;
  target: SQLiteColumn;
  /** Links that carry the owner's sort keys, indexed (target, organization, key, owner): FilterSpec.lead. */
  lead?: { index: string; organization: SQLiteColumn; order: Record<string, SQLiteColumn> };
}

/**
 * A filter on a relation list: the records linked to one target (the assets a vendor hosts, the evidence of a
 * measure). A page walks its sort index and tests each row against the link's primary key (O(rows walked), whatever
 * the target's number of links); its count starts from the target's links, by the link table's index on `target`,
 * and looks each record up: O(matches), which a count stops at cap + 1, where testing every record of the
 * organization was O(records) (listEvidence of one measure holding 1% of 100k items: 52 ms to count, against 10).
 * While the target has at most the count cap of links, the page too reads them (FilterSpec.matches) and sorts those
 * few records, instead of walking the register until the page fills.
 */
export function linkFilter(link: Link, schema: z.ZodType): FilterSpec {
  return {
    schema,
    where: (value) =>
      exists(
        sql`(select 1 from ${link.owner.table} where ${link.owner} = ${link.ownerId} and ${link.target} = ${value})`,
      ),
    count: (value) =>
      sql`${link.ownerId} in (select ${link.owner} from ${link.owner.table} where ${link.target} = ${value})`,
    matches: (value) => sparseMatches(link.owner, link.owner.table, sql`${link.target} = ${value}`),
    ...(link.lead && {
      lead: (value: unknown, organizationId: string): FilterLead => ({
        table: link.owner.table,
        index: link.lead!.index,
        where: sql`${link.target} = ${value} and ${link.lead!.organization} = ${organizationId}`,
        id: link.owner,
        order: link.lead!.order,
      }),
    }),
  };
}

/** linkFilter of one kind of target, by its id prefix. */
export const linkedFilter = (link: Link, target: { prefix: IdPrefix; what: string }, description: string) =>
  linkFilter(link, idOf(target.prefix, target.what).describe(description));

/** The `owner_id` filter every owned register has. */
export const ownerFilter = (column: SQLiteColumn, role = 'Owner') =>
  filter(personRefSchema(role), (value) => personCondition(column, value));
