// References resolved to ids (by id, name or email, a tree's parent within its scope), and people named in the file
// but not found, planned as new records (create_people).
import { randomBase32 } from '../../ids.ts';
import type { RegisterKind, Row } from '../registers/spec.ts';
import { planAdd } from './plan.ts';
import { type CellRef, type Found, type ImportRun, LISTED_PEOPLE, type ParsedRow } from './run.ts';

/** Each reference's ids into the row's values; the tree's parent last, looked for in the row's `within`. */
export function resolveReferences(
  run: ImportRun,
  row: ParsedRow,
  current: Row | undefined,
  existingRefs: Map<RegisterKind, Set<string>>,
  rowPeople: Row[],
) {
  const { spec } = run;
  const parentField = spec.tree?.parent;
  const ordered = [
    ...row.refs.filter((ref) => ref.field.name !== parentField),
    ...row.refs.filter((ref) => ref.field.name === parentField),
  ];
  for (const ref of ordered) {
    const tree = spec.tree;
    const scope =
      tree && ref.field.name === tree.parent
        ? (row.values[tree.within] ?? current?.[tree.within])
        : undefined;
    const ids = resolve(run, row, ref, scope, existingRefs, rowPeople);
    if (ids) row.values[ref.field.name] = ref.field.kind === 'refs' ? ids : ids[0];
  }
}

/** The ids a reference's tokens name, or the errors why not; people to create are created in the plan. */
function resolve(
  run: ImportRun,
  row: ParsedRow,
  ref: CellRef,
  within: unknown,
  existingRefs: Map<RegisterKind, Set<string>>,
  newPeople: Row[],
): string[] | null {
  const { registers, kind, options, createdPeople, placed, lookups: found } = run;
  const target = ref.field.target as RegisterKind;
  const targetSpec = registers[target].spec;
  const ids: string[] = [];
  let failed = false;
  const fail = (message: string) => {
    row.errors.push({ row: row.number, column: ref.column, field: ref.field.name, message });
    failed = true;
  };
  for (const token of ref.tokens) {
    if (token.by === 'id') {
      if (found.ids.get(target)?.has(token.text)) {
        ids.push(token.text);
        existingRefs.set(target, (existingRefs.get(target) ?? new Set()).add(token.text));
      } else fail(`No ${targetSpec.label} ${token.text} in this organization`);
      continue;
    }
    if (token.by === 'email') {
      const email = token.text.toLowerCase();
      const id = found.emails.get(email) ?? createdPeople.get(`email:${email}`)?.id;
      const name = ref.names?.[0];
      if (id) {
        ids.push(id);
        if (found.emails.has(email))
          existingRefs.set('person', (existingRefs.get('person') ?? new Set()).add(id));
      } else if (options.createPeople && name) {
        const person = newPerson(run, row, ref, name, email);
        if (person) {
          newPeople.push(person);
          ids.push(String(person.id));
        }
      } else
        fail(
          `No person with email ${email} in this organization${options.createPeople ? `: give their name in the "${ref.field.label}" column to create them` : ''}`,
        );
      continue;
    }
    let candidates: Found[] = found.names.get(target)?.get(token.text) ?? [];
    if (target === kind) candidates = [...candidates, ...(placed.get(token.text) ?? [])];
    if (targetSpec.tree && target === kind && within !== undefined)
      candidates = candidates.filter((candidate) => candidate.within === within);
    const created = target === 'person' ? createdPeople.get(`name:${token.text}`) : undefined;
    if (created) candidates = [...candidates, { id: created.id, within: null, top: null }];
    if (candidates.length === 1 && candidates[0]) {
      const id = candidates[0].id;
      ids.push(id);
      if (
        found.names
          .get(target)
          ?.get(token.text)
          ?.some((item) => item.id === id)
      )
        existingRefs.set(target, (existingRefs.get(target) ?? new Set()).add(id));
      continue;
    }
    if (candidates.length > 1) {
      fail(
        `${candidates.length} ${targetSpec.labelPlural} are named "${token.text}" (${candidates
          .slice(0, 5)
          .map((item) => item.id)
          .join(', ')}): give the id${target === 'person' ? ' or the email' : ''}`,
      );
      continue;
    }
    if (target === 'person' && options.createPeople) {
      const person = newPerson(run, row, ref, token.text, null);
      if (person) {
        newPeople.push(person);
        ids.push(String(person.id));
      }
      continue;
    }
    fail(
      `No ${targetSpec.label} named "${token.text}" in this organization${target === 'person' ? ' (create_people adds them)' : ''}`,
    );
  }
  return failed ? null : ids;
}

/** A person named in the file but not found, planned as a new record of the people register. */
function newPerson(
  run: ImportRun,
  row: ParsedRow,
  ref: CellRef,
  fullName: string,
  given: string | null,
): Row | null {
  const { people, createdPeople, report } = run;
  const email =
    given ??
    `${
      fullName
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '.')
        .replace(/^\.+|(?<!\.)\.+$/g, '') || 'person'
    }.${randomBase32(6)}@unknown.invalid`;
  const planned = planAdd(run, people, { full_name: fullName, email });
  if (!planned.ok) {
    row.errors.push({
      row: row.number,
      column: ref.column,
      field: ref.field.name,
      message: `Cannot create ${fullName}: ${planned.message}`,
    });
    return null;
  }
  const person = { id: String(planned.row.id), full_name: fullName, email };
  createdPeople.set(`name:${fullName}`, person);
  createdPeople.set(`email:${email}`, person);
  report.counts.people_created++;
  if (report.people_created.length < LISTED_PEOPLE)
    report.people_created.push({ full_name: fullName, email });
  return planned.row;
}
