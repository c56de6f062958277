// A catalog in a file stored through the upload route (POST /api/v1/orgs/<org>/files): read as it streams from the
// blob store, so a catalog larger than a request body (NIST SP 800-53 rev. 5, about 10 MB) loads from an assistant.
// An OSCAL catalog keeps only what the importer reads (json-stream.ts): its memory follows the requirements, not the
// file. A CSV catalog is read whole, within CSV_FILE_LIMIT.
import { and, eq } from 'drizzle-orm';
import { storedFiles } from '../../db/schema.ts';
import { AppError, invalidArguments } from '../../errors.ts';
import type { ToolContext } from '../types.ts';
import { parseCatalogCsv } from './csv.ts';
import { type Catalog, checkedCatalog } from './entries.ts';
import { createJsonStream, textOf } from './json-stream.ts';
import { OSCAL_BUDGET, OSCAL_MEMBERS, OSCAL_TEXT_PARTS, oscalCatalogOf } from './oscal.ts';

/** The most characters of a CSV catalog read from a stored file (a CSV of 10,000 requirements is about 2 MB). */
export const CSV_FILE_LIMIT = 16 * 1024 * 1024;

/** The stored file of an organization, its bytes as a stream; not_found when it is not there. */
async function storedBytes(ctx: ToolContext, fileId: string, organizationId: string) {
  const [file] = await ctx.db
    .select({ storage_key: storedFiles.storage_key, name: storedFiles.name })
    .from(storedFiles)
    .where(and(eq(storedFiles.id, fileId), eq(storedFiles.organization_id, organizationId)))
    .limit(1);
  const blob = file ? await ctx.files.store.get(file.storage_key) : null;
  if (!file || !blob)
    throw new AppError(
      'not_found',
      `No stored file ${fileId} in this organization: store the catalog with POST /api/v1/orgs/${organizationId}/files first.`,
      [{ path: 'file_id', message: 'Not found in this organization' }],
    );
  return blob.body;
}

/** The catalog of a stored file (`format` oscal or csv), checked as an inline one is. */
export async function catalogFromStoredFile(
  ctx: ToolContext,
  fileId: string,
  organizationId: string,
  format: 'oscal' | 'csv',
): Promise<Catalog> {
  const body = await storedBytes(ctx, fileId, organizationId);
  const what = `The catalog in ${fileId}`;
  if (format === 'csv') {
    let text = '';
    for await (const piece of textOf(body, what)) {
      text += piece;
      if (text.length > CSV_FILE_LIMIT)
        throw invalidArguments(
          `${what} is refused: a CSV catalog is read whole, and this one is over its limit.`,
          [{ path: 'file_id', message: `Over ${CSV_FILE_LIMIT} characters` }],
        );
    }
    return checkedCatalog(parseCatalogCsv(text));
  }
  const stream = createJsonStream({
    budget: OSCAL_BUDGET,
    what,
    keep: (key) => OSCAL_MEMBERS.has(key),
    // Guidance and other parts: only their name is kept, as soon as each is read.
    finish: (value, key) =>
      key === 'parts' && !OSCAL_TEXT_PARTS.has(String(value.name)) ? { name: value.name } : value,
  });
  for await (const piece of textOf(body, what)) stream.push(piece);
  return checkedCatalog(oscalCatalogOf(stream.end()));
}
