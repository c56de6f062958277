// People named the way people name them: wherever a tool takes a person's id (an owner), it also takes their email or
// their exact full name, resolved to the id in one place (checkReferences for writes, the filter for lists).
import { and, asc, eq, isNotNull, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { people, users } from '../db/schema.ts';
import { AppError, invalidArguments } from '../errors.ts';
import { isIdOf } from '../ids.ts';
import { normalizeText } from './fields.ts';
import { wrongKindMessage } from './id-kinds.ts';
import type { RegisterSpec, Row } from './registers/spec.ts';
import type { ToolContext } from './types.ts';

/** Any kind's id (`msr_...`): one of another kind is refused, not looked for as a name. */
const ANY_ID = /^[a-z]{3}_[0-9a-z]{24}$/;

/** A person: `per_...`, an email address or an exact full name. */
export const personRefSchema = (role: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' ? normalizeText(value, false) : value),
      z
        .string()
        .min(1, 'Must not be empty')
        .max(254)
        .refine((value) => isIdOf('per', value) || !ANY_ID.test(value), {
          // Another kind's id says what it is and where its kind is listed (an account id is not a person).
          error: (issue) =>
            wrongKindMessage(issue.input, ['per']) ??
            'Expected a Person id (per_...), an email address or a full name, not the id of another kind of record',
        }),
    )
    .describe(`${role}: \`per_...\`, their email or exact full name.`);

/** SQL: the person `value` names (id, email, or full name in any letter case) is the one `column` holds. */
export function personCondition(column: SQLiteColumn, value: string): SQL {
  if (isIdOf('per', value)) return eq(column, value);
  return sql`exists (select 1 from ${people} where ${people.id} = ${column} and (${people.email} = ${value.toLowerCase()} or lower(${people.full_name}) = lower(${value})))`;
}

/**
 * Replaces, in `values`, each person field given as an email or a name by the person's id (of `organizationId`).
 * Nobody, or several people of that name: an error naming the field.
 */
export async function resolvePersonFields(
  ctx: ToolContext,
  spec: RegisterSpec,
  organizationId: string,
  values: Row,
): Promise<void> {
  for (const [name, field] of Object.entries(spec.fields)) {
    const value = values[name];
    if (field.ref !== 'person' || typeof value !== 'string' || isIdOf('per', value)) continue;
    const found = await ctx.db
      .select({ id: people.id, full_name: people.full_name, email: people.email })
      .from(people)
      .where(
        and(
          eq(people.organization_id, organizationId),
          or(eq(people.email, value.toLowerCase()), sql`lower(${people.full_name}) = lower(${value})`),
        ),
      )
      .limit(6);
    // An email names one person; a name may be shared.
    const byEmail = found.filter((person) => person.email === value.toLowerCase());
    const chosen = byEmail.length === 1 ? byEmail : found;
    if (chosen.length === 1 && chosen[0]) {
      values[name] = chosen[0].id;
      continue;
    }
    if (chosen.length === 0)
      throw new AppError(
        'not_found',
        `${name}: no person with the email or full name "${value}" in this organization (listPeople finds them; addPerson adds one).`,
        [{ path: name, message: 'No such person' }],
      );
    throw invalidArguments(
      `${name}: ${chosen.length > 5 ? 'more than 5' : chosen.length} people are named "${value}" (${chosen
        .slice(0, 5)
        .map((person) => `${person.email}, ${person.id}`)
        .join('; ')}): give the email or the id.`,
      [{ path: name, message: 'Several people have this name' }],
    );
  }
}

/**
 * The person of an organization's register whose email is the caller's account's confirmed address, else null. Only
 * a confirmed address counts: anyone could make an account with someone else's address.
 */
export async function callerPerson(ctx: ToolContext, organizationId: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ id: people.id })
    .from(people)
    .innerJoin(users, sql`lower(${users.email}) = lower(${people.email})`)
    .where(
      and(
        eq(people.organization_id, organizationId),
        eq(users.id, ctx.principal.userId),
        isNotNull(users.email_verified_at),
      ),
    )
    .orderBy(asc(people.id))
    .limit(1);
  return row?.id ?? null;
}
