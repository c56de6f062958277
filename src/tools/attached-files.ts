// A record's attached stored file, as evidence items and document versions carry one: a `file_id` of the upload
// route or a small file inline (content_base64 + file_name), its facts copied or read with the record, and a signed
// download link made once the caller's rights are checked.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { storedFiles } from '../db/schema.ts';
import { invalidArguments, notFound } from '../errors.ts';
import { downloadLink } from '../files/links.ts';
import { receiveFile } from '../files/receive.ts';
import { shortText } from './fields.ts';
import type { Row } from './registers/spec.ts';
import type { ToolContext } from './types.ts';

/** A base64 text whose bytes fit a request body of 1 MB (MAX_BODY_BYTES' default) with room for the rest. */
const MAX_INLINE_BASE64 = 1_000_000;

/** The facts of an attached file a record answers with (null without a file). */
export const FILE_FACT_SCHEMAS = {
  file_name: z.string().nullable().describe('File name, sanitised.'),
  size: z.number().int().nullable().describe('File size in bytes.'),
  content_type: z.string().nullable().describe('Content type sniffed from the bytes.'),
  sha256: z.string().nullable().describe('SHA-256 of the bytes (hex), computed on upload.'),
};

/** The signed download link a read answers beside a record with a file. */
export const DOWNLOAD_SCHEMAS = {
  download_url: z
    .string()
    .nullable()
    .optional()
    .describe('Signed link to download the file, valid for minutes; null without a file.'),
  download_expires_at: z.string().nullable().optional().describe('When download_url expires.'),
};

/** The add (or update) arguments of an inline file: content_base64, described for the register, and file_name. */
export function inlineFileArguments(contentDescription: string) {
  return {
    content_base64: z.string().max(MAX_INLINE_BASE64).optional().describe(contentDescription),
    file_name: shortText(255).optional().describe('Name of the inline file, e.g. "mfa-policy.pdf".'),
  };
}

/** A stored file of the organization the call acts in, as a record copies its facts; else not_found. */
export async function fileFacts(ctx: ToolContext, fileId: string): Promise<Row> {
  const [file] = await ctx.db
    .select({
      file_name: storedFiles.name,
      size: storedFiles.size,
      content_type: storedFiles.content_type,
      sha256: storedFiles.sha256,
    })
    .from(storedFiles)
    .where(and(eq(storedFiles.id, fileId), eq(storedFiles.organization_id, String(ctx.organizationId))))
    .limit(1);
  if (!file) throw notFound('Stored file');
  return file;
}

/**
 * content_base64 + file_name of `values`: stored (receiveFile) and given as file_id. Refused together with any of
 * `alternatives` (the other ways to give the record its file or link, such as file_id).
 */
export async function takeInlineFile(
  ctx: ToolContext,
  organizationId: string,
  values: Row,
  alternatives: string[],
): Promise<void> {
  const { content_base64: content, file_name: name } = values;
  delete values.content_base64;
  delete values.file_name;
  if (content === undefined && name === undefined) return;
  if (typeof content !== 'string' || typeof name !== 'string')
    throw invalidArguments('An inline file needs both content_base64 and file_name.', [
      { path: typeof content === 'string' ? 'file_name' : 'content_base64', message: 'Required' },
    ]);
  if (alternatives.some((field) => values[field] !== undefined))
    throw invalidArguments(`Give one of ${alternatives.join(', ')} or content_base64.`, [
      { path: 'content_base64', message: `With ${alternatives.join(' or ')}` },
    ]);
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(content.replace(/\s+/g, '')), (char) => char.charCodeAt(0));
  } catch {
    throw invalidArguments('content_base64 is not base64.', [
      { path: 'content_base64', message: 'Not base64' },
    ]);
  }
  values.file_id = (
    await receiveFile(ctx, organizationId, bytes, { name, uploader: ctx.principal.tokenId })
  ).id;
}

/** The signed link to a file read through `subjectId` (the caller may read it), or nulls without a file. */
export async function fileDownload(
  ctx: ToolContext,
  options: { organizationId: string; fileId: unknown; subjectId: string },
): Promise<{ download_url: string | null; download_expires_at: string | null }> {
  if (typeof options.fileId !== 'string') return { download_url: null, download_expires_at: null };
  const link = await downloadLink(ctx, { ...options, fileId: options.fileId });
  return { download_url: link.url, download_expires_at: link.expires_at };
}
