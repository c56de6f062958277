// MCP Streamable HTTP surface: stateless, JSON responses, a fresh server and transport per request over the tool map.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator as JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Principal } from '../auth/principal.ts';
import { toErrorBody } from '../errors.ts';
import type { ToolMap } from '../tools/index.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';
import { jsonSchemasOf } from './schemas.ts';

export const SERVER_INSTRUCTIONS =
  'Compliance registers of the organizations this token can access. Start with listOrganizations to get an organization_id (org_...), then use the list*/get*/add*/update*/delete* tools of each kind (vendors, risks, measures, obligations, people, frameworks, assets, data classifications, nonconformities, continual improvements, audits) and getComplianceSummary for an overview. Filter on the server with the `filter` argument and page with `cursor`. Enum values are case-insensitive. Delete tools cannot be undone: confirm with the user first.';

export interface McpSurface {
  handle(request: Request, principal: Principal, requestId: string): Promise<Response>;
}

export function createMcpSurface(options: {
  tools: ToolMap;
  invoke: InvokeDeps;
  serverName: string;
  version: string;
  jsonSchemaValidator: JsonSchemaValidator;
}): McpSurface {
  // Computed once: tools/list answers the same list on every request.
  const listResult: ListToolsResult = {
    tools: [...options.tools.values()].map((tool) => {
      const schemas = jsonSchemasOf(tool);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: schemas.input,
        outputSchema: schemas.mcpOutput,
        annotations: { title: tool.title, ...tool.annotations },
      };
    }),
  };

  return {
    async handle(request, principal, requestId) {
      const server = new Server(
        { name: options.serverName, version: options.version, title: 'Compliance MCP' },
        {
          capabilities: { tools: { listChanged: false } },
          instructions: SERVER_INSTRUCTIONS,
          jsonSchemaValidator: options.jsonSchemaValidator,
        },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => listResult);
      server.setRequestHandler(CallToolRequestSchema, async (call): Promise<CallToolResult> => {
        const tool = options.tools.get(call.params.name);
        if (!tool) {
          throw new McpError(
            ErrorCode.InvalidParams,
            `Unknown tool: ${call.params.name}. Call tools/list for the tool names.`,
          );
        }
        const outcome = await invokeTool(
          options.invoke,
          tool,
          call.params.arguments,
          principal,
          'mcp',
          requestId,
        );
        const structured = outcome.ok ? outcome.result : { ...toErrorBody(outcome.error) };
        return {
          content: [{ type: 'text', text: JSON.stringify(structured) }],
          structuredContent: structured,
          ...(outcome.ok ? {} : { isError: true }),
        };
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        return await transport.handleRequest(withJsonAccept(request));
      } finally {
        await server.close();
      }
    },
  };
}

// Responses are always JSON, so a client that only accepts application/json (curl, proxies) is served too.
function withJsonAccept(request: Request): Request {
  const accept = request.headers.get('accept') ?? '';
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(request, { headers });
}
