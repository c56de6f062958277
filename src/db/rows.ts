// Rows of a flat drizzle selection mapped as drizzle maps them (each field decoded by its column or SQL's decoder,
// NULL as null, a blob as drizzle normalizes it), by a function made once per selection: drizzle asks what every
// field is (its entity checks) for every row of every result. A field whose decoder keeps the value is not decoded.
import { Column, is, noopDecoder, SQL } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';

export type MappedRow = Record<string, unknown>;

type Decode = (value: unknown) => unknown;
type Decoder = { mapFromDriverValue(value: unknown): unknown };
/** SQL's decoder (drizzle marks it internal; mapWith sets it, a no-op otherwise), as drizzle's mapping reads it. */
type Decoded = { decoder: Decoder };

/** A decoder that returns the value as it is (most columns: text, plain integers; SQL without mapWith). */
function isIdentity(decoder: Decoder): boolean {
  return (
    decoder.mapFromDriverValue === Column.prototype.mapFromDriverValue ||
    decoder.mapFromDriverValue === noopDecoder.mapFromDriverValue
  );
}

/** The decoder of a field; null when it keeps the value as it is. */
function decoderOf(field: unknown): Decode | null {
  const decoder: Decoder | undefined = is(field, Column)
    ? field
    : is(field, SQL)
      ? (field as unknown as Decoded).decoder
      : is(field, SQL.Aliased)
        ? (field.sql as unknown as Decoded).decoder
        : undefined;
  if (!decoder) throw new Error('rowMapper: a flat selection of columns and SQL expressions only');
  return isIdentity(decoder) ? null : (value) => decoder.mapFromDriverValue(value);
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
      if (value === null) out[keys[index] as string] = null;
      else {
        const decode = decoders[index];
        out[keys[index] as string] = decode ? decode(normalized(value)) : normalized(value);
      }
    }
    return out;
  };
}
