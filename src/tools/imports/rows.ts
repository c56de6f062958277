// The table's header matched to the register's fields, and each row's cells read as values and references.
import { invalidArguments } from '../../errors.ts';
import { ID_PREFIXES, isIdOf } from '../../ids.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import { type ColumnMatch, matchColumns, matchedField } from './columns.ts';
import type { CellRef, ImportRun, ParsedRow } from './run.ts';
import { cellValue } from './values.ts';

/** A person's reference written as an email address. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Matches the header's columns to fields (into the run and its report); refuses unknown or doubled columns. */
export function readHeader(run: ImportRun, row: TableRow) {
  const { tools, spec, options, fields, report } = run;
  const header = row.cells.map((cell) => cell.trim());
  run.header = header;
  if (header.every((cell) => cell === ''))
    throw invalidArguments('The file has no header row: expected column names on its first row.');
  const matches = matchColumns(tools, header, options.columns);
  run.matches = matches;
  report.columns = matches.map((match) => ({
    column: match.column,
    header: match.header,
    field: matchedField(match),
    status: match.target.kind,
  }));
  const unknown = matches.filter((match) => match.target.kind === 'unknown');
  if (unknown.length > 0) {
    const names = unknown.map((match) => `"${match.header || `(column ${match.column}, no header)`}"`);
    throw invalidArguments(
      `Unknown column${unknown.length > 1 ? 's' : ''} ${names.join(', ')}: not a field of ${spec.labelPlural}. Map ${unknown.length > 1 ? 'them' : 'it'} to a field with columns ({"${unknown[0]?.header}": "<field>"}) or ignore ${unknown.length > 1 ? 'them' : 'it'} (""). Fields: id, ${fields.map((field) => field.name).join(', ')}.`,
      unknown.map((match) => ({
        path: `column ${match.column}`,
        message: `Unknown column ${match.header}`,
      })),
    );
  }
  const claimed = new Map<string, ColumnMatch>();
  for (const match of matches) {
    const { target } = match;
    const key =
      target.kind === 'id'
        ? 'id'
        : target.kind === 'field'
          ? `${target.field}:${target.byEmail === true}`
          : null;
    if (!key) continue;
    const earlier = claimed.get(key);
    if (earlier) {
      throw invalidArguments(
        `Columns "${earlier.header}" and "${match.header}" both hold ${matchedField(match)}; ignore one of them.`,
        [{ path: `column ${match.column}`, message: `Same field as column ${earlier.column}` }],
      );
    }
    claimed.set(key, match);
  }
}

/** A row's id, values and references (by id, name or email), or the errors of its cells. */
export function parseRow(run: ImportRun, row: TableRow): ParsedRow {
  const { matches, fieldByName, options } = run;
  const parsed: ParsedRow = { number: row.number, id: null, values: {}, refs: [], errors: [] };
  if (row.cells.length > matches.length) {
    parsed.errors.push({
      row: row.number,
      column: null,
      field: null,
      message: `${row.cells.length} cells, but the header has ${matches.length} columns`,
    });
    return parsed;
  }
  const emailRefs = new Map<string, CellRef>();
  matches.forEach((match, index) => {
    const raw = row.cells[index] ?? '';
    const text = raw.trim();
    const { target } = match;
    if (target.kind === 'id') {
      if (text !== '') parsed.id = text;
      return;
    }
    if (target.kind !== 'field') return;
    const field = fieldByName.get(target.field);
    if (!field) return;
    if (text === '') {
      // An empty list cell is an empty list; any other empty cell clears an optional field (on an update).
      if (target.byEmail || field.name in parsed.values) return;
      if (field.kind === 'list' || field.kind === 'refs') parsed.values[field.name] = [];
      else if (field.nullable) parsed.values[field.name] = null;
      return;
    }
    const converted = cellValue(field, raw, options.dateFormat);
    if (!converted.ok) {
      parsed.errors.push({
        row: row.number,
        column: match.header,
        field: field.name,
        message: converted.message,
      });
      return;
    }
    if (field.target) {
      const items = field.kind === 'refs' ? (converted.value as string[]) : [String(converted.value)];
      const prefix = ID_PREFIXES[field.target];
      const ref: CellRef = {
        field,
        column: match.header,
        tokens: items.map((text) => ({
          text,
          by:
            target.byEmail || (field.target === 'person' && EMAIL.test(text))
              ? 'email'
              : isIdOf(prefix, text)
                ? 'id'
                : 'name',
        })),
      };
      if (target.byEmail) emailRefs.set(field.name, ref);
      else parsed.refs.push(ref);
      delete parsed.values[field.name];
      return;
    }
    parsed.values[field.name] = converted.value;
  });
  // An email names the person better than a name: it replaces the name column's reference.
  for (const [name, ref] of emailRefs) {
    const byName = parsed.refs.find((item) => item.field.name === name);
    if (byName) ref.names = byName.tokens.map((token) => token.text);
    parsed.refs = [...parsed.refs.filter((item) => item.field.name !== name), ref];
    delete parsed.values[name];
  }
  return parsed;
}
