// storeFile: the bytes of one upload (the API's POST /api/v1/orgs/<org>/files, the web's upload forms) stored for an
// organization. Not in the tool map (its file is a stream, not a JSON argument), but called through the same seam as
// every tool (src/surfaces/invoke.ts): the token's scope and role, the call rate, the call log.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { requireOrganization } from '../tools/access.ts';
import { idOf } from '../tools/fields.ts';
import { CREATE_ANNOTATIONS, defineTool } from '../tools/types.ts';
import { receiveFile } from './receive.ts';

export const storeFileTool = defineTool({
  name: 'storeFile',
  title: 'Store a file',
  description:
    'Stores the bytes of one uploaded file for the organization and answers its file id, to attach as evidence or a document version.',
  scope: 'write',
  annotations: CREATE_ANNOTATIONS,
  input: z.object({
    organization_id: idOf('org', 'Organization').describe('The organization the file is stored for.'),
    name: z
      .string()
      .min(1)
      .max(1000)
      .describe('The file name, as the uploader gave it (cleaned when stored).'),
    announced_bytes: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'The size the request announced for a raw body: the limits are checked on it before a byte is read.',
      ),
    max_bytes: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'A limit below FILE_MAX_BYTES for this file (what a questionnaire attachment may still take): larger is payload_too_large.',
      ),
  }),
  output: z.object({
    file: z
      .object({
        id: z.string(),
        name: z.string(),
        size: z.number(),
        content_type: z.string(),
        sha256: z.string(),
        created_at: z.string(),
      })
      .describe('The stored file.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'write');
    if (!ctx.upload) throw new AppError('invalid_arguments', 'The request has no file.');
    const file = await receiveFile(ctx, input.organization_id, ctx.upload, {
      name: input.name,
      uploader: ctx.principal.tokenId,
      ...(input.announced_bytes === undefined ? {} : { announcedBytes: input.announced_bytes }),
      ...(input.max_bytes === undefined ? {} : { maxBytes: input.max_bytes }),
    });
    return { file };
  },
});
