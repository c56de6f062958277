// Field specs that several registers share (owner, name, description).

import { eq } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { idOf, longText, shortText } from './fields.ts';
import { filter, optional, required } from './registers/spec.ts';

export const ownerField = (role = 'Owner', hint = 'The person accountable for it.') =>
  optional(idOf('per', 'Person').describe(`${role} (\`per_...\`).`), 'person', { label: role, hint });

export const nameField = (example: string) => required(shortText().describe(`Name, e.g. "${example}".`));

export const descriptionField = (what: string) =>
  optional(longText().describe(`Free-text description of the ${what}.`));

/** The `owner_id` filter every owned register has. */
export const ownerFilter = (column: SQLiteColumn, _what: string) =>
  filter(idOf('per', 'Person').describe(`Owner (\`per_...\`).`), (value) => eq(column, value));
