// JSON Schemas of the tool map, computed once per map (not per request) and shared by MCP and OpenAPI.
import { z } from 'zod';
import type { Tool } from '../tools/types.ts';

export interface ToolJsonSchemas {
  input: Record<string, unknown> & { type: 'object' };
  /** The success result alone (OpenAPI 200). */
  output: Record<string, unknown> & { type: 'object' };
  /** The success result or the error envelope: MCP error results carry `structuredContent.error` too. */
  mcpOutput: Record<string, unknown> & { type: 'object' };
}

export const ERROR_JSON_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      description: 'Why the call failed (a refused call changes nothing).',
      properties: {
        code: {
          type: 'string',
          description:
            'Machine-readable code: invalid_json, invalid_arguments, unauthorized, insufficient_scope, forbidden, not_found, unknown_tool, invalid_transition, conflict, payload_too_large, unsupported_media_type, rate_limited, internal.',
        },
        message: { type: 'string', description: 'What went wrong and how to fix it.' },
        details: {
          description:
            'For invalid_arguments: a list of {path, message}; for invalid_transition: the states.',
        },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

const cache = new WeakMap<Tool, ToolJsonSchemas>();

function convert(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> & { type: 'object' } {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return { ...json, type: 'object' };
}

export function jsonSchemasOf(tool: Tool): ToolJsonSchemas {
  let schemas = cache.get(tool);
  if (!schemas) {
    const output = convert(tool.output, 'output');
    schemas = {
      input: convert(tool.input, 'input'),
      output,
      mcpOutput: { type: 'object', anyOf: [output, ERROR_JSON_SCHEMA] },
    };
    cache.set(tool, schemas);
  }
  return schemas;
}
