// Contract: tools/list equals the tool map, and every tool answers on every surface with the right values.
import { beforeAll, describe, expect, it } from 'vitest';
import { connectionListing } from '../../src/surfaces/connection.ts';
import { mcpCostOf } from '../../src/surfaces/mcp-server.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { bearer, callDirect, type HostRef, mcpCallTool, mcpPost } from './host.ts';
import { answerMismatches, type RecordIds, sampleArguments, seedRecords } from './samples.ts';

const NAMES = [...TOOLS.keys()];

function camelCaseKeys(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      value,
    ]),
  );
}

export function describeToolContract(hostRef: HostRef): void {
  describe('tools/list and initialize over MCP', () => {
    it('lists exactly the tools of the map, each with schemas and all four annotation hints', async () => {
      const host = hostRef();
      const response = await mcpPost(host, bearer(host.world.tokens.alice), {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        result: {
          tools: {
            name: string;
            title: string;
            inputSchema: { type: string };
            outputSchema?: { type: string };
            annotations: object;
          }[];
        };
      };
      // ?toolsets=all: the core, then whole toolsets while they fit the budget; findTools reaches the rest.
      const listing = connectionListing(
        TOOLS.values(),
        { toolsets: 'all', readonly: false },
        'read_write',
        mcpCostOf,
      );
      expect(listing.leftOut.length).toBeGreaterThan(0);
      expect(body.result.tools.map((tool) => tool.name)).toEqual(listing.tools.map((tool) => tool.name));
      for (const tool of body.result.tools) {
        const definition = TOOLS.get(tool.name);
        expect(tool.inputSchema.type).toBe('object');
        // Read tools describe their result; write tools return the record as the get tool describes it.
        expect(tool.outputSchema?.type, tool.name).toBe(definition?.scope === 'read' ? 'object' : undefined);
        expect(tool.annotations, tool.name).toMatchObject({
          title: definition?.title,
          ...definition?.annotations,
        });
        expect(tool.title, tool.name).toBe(definition?.title);
      }
    });

    it('negotiates the protocol version without a session id and declares tools.listChanged false', async () => {
      const host = hostRef();
      for (const protocolVersion of ['2025-03-26', '2025-06-18']) {
        const response = await mcpPost(host, bearer(host.world.tokens.alice), {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('mcp-session-id')).toBeNull();
        const body = (await response.json()) as {
          result: { protocolVersion: string; capabilities: unknown; serverInfo: { name: string } };
        };
        expect(body.result.protocolVersion).toBe(protocolVersion);
        expect(body.result.capabilities).toEqual({
          tools: { listChanged: false },
          resources: { listChanged: false },
          extensions: { 'io.modelcontextprotocol/ui': {} },
        });
        expect(body.result.serverInfo.name).toBe('compliance-mcp');
      }
    });

    it('answers an unknown tool with a JSON-RPC error naming it', async () => {
      const host = hostRef();
      const response = await mcpPost(host, bearer(host.world.tokens.alice), {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'listUnicorns', arguments: {} },
      });
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toContain('listUnicorns');
    });

    it('answers invalid arguments with an isError tool result naming the field', async () => {
      const host = hostRef();
      const result = await mcpCallTool(host, host.world.tokens.alice, 'listRisks', {
        organization_id: host.world.orgTools,
        filter: { status: 'BURNING' },
      });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: { code: 'invalid_arguments', details: [{ path: 'filter.status' }] },
      });
    });
  });

  describe('every tool answers on every surface', () => {
    let ids: RecordIds;

    beforeAll(async () => {
      const host = hostRef();
      ids = await seedRecords(host, host.world.tokens.alice, host.world.orgTools);
    });

    async function argumentsFor(name: string) {
      const host = hostRef();
      return sampleArguments(host, host.world.tokens.alice, name, host.world.orgTools, ids);
    }

    it.each(NAMES)(
      '%s over MCP: structuredContent matches the output schema and the text is the same JSON',
      async (name) => {
        const host = hostRef();
        const args = await argumentsFor(name);
        const result = await mcpCallTool(host, host.world.tokens.alice, name, args);
        expect(result.isError ?? false, JSON.stringify(result.structuredContent)).toBe(false);
        expect(JSON.parse(result.content[0]?.text ?? 'null')).toEqual(result.structuredContent);
        expect(TOOLS.get(name)?.output.safeParse(result.structuredContent).success).toBe(true);
        expect(answerMismatches(name, args, result.structuredContent, host.world.orgTools, ids)).toEqual([]);
      },
    );

    it.each(NAMES)('%s over POST /api/mcp/tools/<tool>', async (name) => {
      const host = hostRef();
      const args = await argumentsFor(name);
      const result = await callDirect(host, host.world.tokens.alice, name, args, 'tools');
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(TOOLS.get(name)?.output.safeParse(result.body).success).toBe(true);
      expect(answerMismatches(name, args, result.body, host.world.orgTools, ids)).toEqual([]);
    });

    it.each(NAMES)('%s over POST /api/mcp/<tool> with camelCase argument names', async (name) => {
      const host = hostRef();
      const args = await argumentsFor(name);
      const result = await callDirect(host, host.world.tokens.alice, name, camelCaseKeys(args), 'short');
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(TOOLS.get(name)?.output.safeParse(result.body).success).toBe(true);
      expect(answerMismatches(name, args, result.body, host.world.orgTools, ids)).toEqual([]);
    });
  });
}
