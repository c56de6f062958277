// Rows of a flat drizzle selection mapped as drizzle maps them (each field decoded by its column or SQL's decoder,
// NULL as null, a blob as drizzle normalizes it), by a function made once per selection: drizzle asks what every
// field is (its entity checks) for every row of every result.
import { Column, is, SQL } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';

export type MappedRow = Record<string, unknown>;

type Decode = (value: unknown) => unknown;
/** SQL's decoder (drizzle marks it internal; mapWith sets it, a no-op otherwise), as drizzle's mapping reads it. */
type Decoded = { decoder: { mapFromDriverValue(value: unknown): unknown } };

function decoderOf(field: unknown): Decode {
  if (is(field, Column)) return (value) => field.mapFromDriverValue(value);
  if (is(field, SQL)) {
    const { decoder } = field as unknown as Decoded;
    return (value) => decoder.mapFromDriverValue(value);
  }
  if (is(field, SQL.Aliased)) {
    const { decoder } = field.sql as unknown as Decoded;
    return (value) => decoder.mapFromDriverValue(value);
  }
  throw new Error('rowMapper: a flat selection of columns and SQL expressions only');
}

/** drizzle's normalizeFieldValue (drizzle-orm/libsql): a blob read as an ArrayBuffer becomes a Buffer (or text). */
function normalized(value: unknown): unknown {
  if (!(value instanceof ArrayBuffer)) return value;
  return typeof Buffer !== 'undefined' ? Buffer.from(value) : new TextDecoder().decode(value);
}

/**
 * The mapper of rows selected by `selection` (`db.select(selection)`, the columns in its order), from the client's
 * rows (values by index).
 */
export function rowMapper(selection: SelectedFields): (row: ArrayLike<unknown>) => MappedRow {
  const keys = Object.keys(selection);
  const decoders = Object.values(selection).map(decoderOf);
  const count = keys.length;
  return (row) => {
    const out: MappedRow = {};
    for (let index = 0; index < count; index++) {
      const value = row[index];
      out[keys[index] as string] = value === null ? null : (decoders[index] as Decode)(normalized(value));
    }
    return out;
  };
}
