// `compliance-mcp evidence add --org ORG --to RECORD FILE`: a file streamed into the store, then an evidence item for
// the record, as the organization's first owner (the operator acts for the organization, as imports do).
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Db } from '../db/client.ts';
import { invalidArguments } from '../errors.ts';
import { receiveFile } from '../files/receive.ts';
import type { FileRuntime } from '../files/store.ts';
import { REGISTERS } from '../tools/index.ts';
import { cliContext } from './context.ts';

export async function addEvidenceFile(
  db: Db,
  files: FileRuntime,
  now: () => Date,
  options: { organizationId: string; recordId: string; title?: string; file: string },
): Promise<Record<string, unknown>> {
  const tool = REGISTERS.evidence.add;
  const ctx = await cliContext(db, options.organizationId, now, tool.name, files);
  const name = basename(options.file);
  const args = {
    organization_id: options.organizationId,
    title: options.title ?? name,
    record_ids: [options.recordId],
  };
  // The arguments are checked before the bytes move; the file is read only for a valid call.
  const parsed = tool.input.safeParse({ ...args, url: 'https://example.com/' });
  if (!parsed.success)
    throw invalidArguments(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  const body = Readable.toWeb(createReadStream(options.file)) as ReadableStream<Uint8Array>;
  const stored = await receiveFile(ctx, options.organizationId, body, { name });
  return tool.run(ctx, tool.input.parse({ ...args, file_id: stored.id }));
}
