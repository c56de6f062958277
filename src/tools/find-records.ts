// findRecords: one text search across every register of an organization, for a connection that lists no register's
// tools (the core): each register's own list tool searches, so its access checks and its search are the same.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { idOf, sizeSchema } from './fields.ts';
import type { Registers } from './registers/builder.ts';
import { kindNamed, nameFieldsOf } from './registers/spec.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from './types.ts';

const DEFAULT_PER_KIND = 5;

export function findRecordsTool(registers: Registers): Tool {
  const all = Object.values(registers);
  return defineTool({
    name: 'findRecords',
    title: 'Find records',
    description:
      'Search every register of an organization at once (risks, measures, requirements, people, vendors, documents, ...) for records whose text mentions the query: ids and names, grouped by kind, with the get tool of each.',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: 'core',
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
      query: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .describe('Text in a name, title, reference or description (any case).'),
      kinds: z
        .array(z.string().min(1).max(64))
        .min(1)
        .max(50)
        .optional()
        .describe('Only these registers, singular or plural (risk, requirements); default all.'),
      size: sizeSchema.max(20).optional().describe(`Records per kind, at most; default ${DEFAULT_PER_KIND}.`),
    }),
    output: z.object({
      matches: z
        .array(
          z
            .object({
              kind: z.string().describe('The register (risk, requirement, person, ...).'),
              get_tool: z.string().describe('The tool that reads one in full.'),
              total_count: z.number().int().nonnegative().describe('Matches of this kind, at most 100.'),
              records: z.array(z.object({ id: z.string(), name: z.string() })).describe('The first matches.'),
            })
            .describe('The matches of one kind.'),
        )
        .describe('Kinds with matches, in register order.'),
    }),
    async run(ctx, input) {
      const specs = all.map((register) => register.spec);
      const wanted = input.kinds?.map((name) => {
        const kind = kindNamed(specs, name);
        if (!kind) {
          const message = `No register is named ${name}. Registers: ${specs.map((spec) => spec.kind).join(', ')}.`;
          throw new AppError('invalid_arguments', message, [{ path: 'kinds', message: 'Not a register' }]);
        }
        return kind;
      });
      const searched = all.filter((register) => !wanted || wanted.includes(register.spec.kind));
      const size = input.size ?? DEFAULT_PER_KIND;
      const pages = await Promise.all(
        searched.map(async (register) => {
          const args = register.list.input.safeParse({
            organization_id: input.organization_id,
            filter: { query: input.query },
            size,
          });
          // The register's own query rules (e.g. no control characters) answer as its list tool would.
          if (!args.success) {
            const message = args.error.issues[0]?.message ?? 'Not a valid query';
            throw new AppError('invalid_arguments', `Invalid arguments for findRecords: query: ${message}`, [
              { path: 'query', message },
            ]);
          }
          return { register, page: await register.list.run(ctx, args.data) };
        }),
      );
      return {
        matches: pages.flatMap(({ register, page }) => {
          const records = (page[register.spec.listKey] ?? []) as Record<string, unknown>[];
          if (records.length === 0) return [];
          const fields = nameFieldsOf(register.spec);
          return [
            {
              kind: register.spec.kind,
              get_tool: register.get.name,
              total_count: Number(page.total_count ?? records.length),
              records: records.map((record) => ({
                id: String(record.id),
                name: fields
                  .map((field) => record[field])
                  .filter((value) => value !== null && value !== undefined && value !== '')
                  .join(' '),
              })),
            },
          ];
        }),
      };
    },
  });
}
