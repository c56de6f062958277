// Field specs that several registers share (owner, name, description).

import { eq } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { idOf, longText, shortText } from './fields.ts';
import { filter, optional, required } from './register.ts';

export const ownerField = (role = 'Owner') =>
  optional(
    idOf('per', 'Person').describe(
      `${role}: a person of the same organization (\`per_...\`); null clears it.`,
    ),
    'person',
  );

export const nameField = (example: string) => required(shortText().describe(`Name, e.g. "${example}".`));

export const descriptionField = (what: string) =>
  optional(longText().describe(`Free-text description of the ${what}.`));

/** The `owner_id` filter every owned register has. */
export const ownerFilter = (column: SQLiteColumn, what: string) =>
  filter(idOf('per', 'Person').describe(`Only ${what} owned by this person (\`per_...\`).`), (value) =>
    eq(column, value),
  );
