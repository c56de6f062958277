// Field specs that several registers share (owner, name, description).

import { eq, exists, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { IdPrefix } from '../ids.ts';
import { idOf, longText, shortText } from './fields.ts';
import { filter, optional, required } from './registers/spec.ts';

export const ownerField = (role = 'Owner', hint = 'The person accountable for it.') =>
  optional(idOf('per', 'Person').describe(`${role} (\`per_...\`).`), 'person', { label: role, hint });

export const nameField = (example: string) => required(shortText().describe(`Name, e.g. "${example}".`));

export const descriptionField = (what: string) =>
  optional(longText().describe(`Free-text description of the ${what}.`));

/**
 * A filter on a relation list: the records linked to one target (the assets a vendor hosts). `owner` is the linking
 * table's column holding this register's id, `target` the other; the link's primary key answers each row's test.
 */
export const linkedFilter = (
  link: { ownerId: SQLiteColumn; owner: SQLiteColumn; target: SQLiteColumn },
  target: { prefix: IdPrefix; what: string },
  description: string,
) =>
  filter(idOf(target.prefix, target.what).describe(description), (value) =>
    exists(
      sql`(select 1 from ${link.owner.table} where ${link.owner} = ${link.ownerId} and ${link.target} = ${value})`,
    ),
  );

/** The `owner_id` filter every owned register has. */
export const ownerFilter = (column: SQLiteColumn, role = 'Owner') =>
  filter(idOf('per', 'Person').describe(`${role} (\`per_...\`).`), (value) => eq(column, value));
