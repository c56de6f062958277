// The chat views (MCP Apps extension) on both eras: listed and read as ui:// resources with the extension's MIME type
// and a policy allowing no network, named by their tools' `_meta`, the tool results unchanged for other hosts.
import { createHash } from 'node:crypto';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_MIME_TYPE, APPS_EXTENSION_ID, CHAT_VIEWS } from '../../src/chat-views/index.ts';
import { TOOLS } from '../../src/tools/index.ts';
import {
  createTestRuntime,
  createWorld,
  mcpClient,
  mcpPost,
  modernMcpClient,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => {
  await runtime.cleanup();
});

/** What both eras' clients answer, in the shape both SDK lines share. */
interface Era {
  listTools(): Promise<{ tools: { name: string; _meta?: Record<string, unknown> }[] }>;
  listResources(): Promise<{
    resources: { uri: string; name: string; mimeType?: string; _meta?: unknown }[];
  }>;
  readResource(params: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>;
  close(): Promise<void>;
}

const EXPECTED_VIEWS = {
  getComplianceSummary: 'ui://compliance-mcp/risk-heat-map.html',
  getStatementOfApplicability: 'ui://compliance-mcp/statement-of-applicability.html',
  getFrameworkCoverage: 'ui://compliance-mcp/framework-coverage.html',
  myWork: 'ui://compliance-mcp/my-work.html',
};
const NO_ORIGINS = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

/** The inline style and script of a view's document and the policy its meta tag declares. */
function partsOf(html: string) {
  const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? '';
  const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
  const policy = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
  return { style, script, policy };
}

describe.each([
  ['2025-11-25 (SDK 1.x client)', () => mcpClient(runtime, world.aliceReadToken) as unknown as Promise<Era>],
  [
    '2026-07-28 (SDK 2.x client)',
    () => modernMcpClient(runtime, world.aliceReadToken) as unknown as Promise<Era>,
  ],
])('chat views on %s', (_era, connect) => {
  it('names each view from the _meta.ui.resourceUri of its tool, and no other tool', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const linked = Object.fromEntries(
      tools.flatMap((tool) => {
        const uri = getToolUiResourceUri(tool);
        return uri ? [[tool.name, uri]] : [];
      }),
    );
    expect(linked).toEqual(EXPECTED_VIEWS);
    const summary = tools.find((tool) => tool.name === 'getComplianceSummary');
    expect(summary?._meta).toEqual({ ui: { resourceUri: EXPECTED_VIEWS.getComplianceSummary } });
    await client.close();
  });

  it('lists the four views with the MCP Apps MIME type and a policy allowing no origin', async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(Object.values(EXPECTED_VIEWS).sort());
    for (const resource of resources) {
      expect(resource.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(resource._meta).toEqual({ ui: { csp: NO_ORIGINS, prefersBorder: true } });
    }
    await client.close();
  });

  it('reads each view: one self-contained document whose only style and script apply by their hashes', async () => {
    const client = await connect();
    for (const uri of Object.values(EXPECTED_VIEWS)) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [content] = contents;
      expect(content?.uri).toBe(uri);
      expect(content?.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(content?._meta).toEqual({ ui: { csp: NO_ORIGINS, prefersBorder: true } });
      const html = String(content?.text);
      expect(html.startsWith('<!doctype html>')).toBe(true);
      const { style, script, policy } = partsOf(html);
      const hash = (text: string) => createHash('sha256').update(text).digest('base64');
      expect(style.length).toBeGreaterThan(500);
      expect(policy).toBe(
        `default-src 'none'; script-src 'sha256-${hash(script)}'; style-src 'sha256-${hash(style)}'; img-src 'none'; connect-src 'none'; font-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'`,
      );
      // Nothing is loaded from anywhere and no markup is built from strings: data can only become text.
      expect(html).not.toMatch(/https?:\/\/|src=|innerHTML|insertAdjacentHTML|document\.write|fetch\(/);
    }
    await client.close();
  });
});

describe('chat views over raw JSON-RPC', () => {
  const post = (token: string, body: unknown) =>
    mcpPost(runtime, { authorization: `Bearer ${token}` }, body).then(
      async (response) => (await response.json()) as Record<string, Record<string, unknown>>,
    );

  it('declares resources and the extension in its capabilities, in the SDK spelling', async () => {
    expect(APPS_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    const body = await post(world.aliceToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(body.result?.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/ui': {} },
    });
  });

  it('answers an unknown resource with invalid params (2026-07-28 rule, every era), naming it', async () => {
    const body = await post(world.aliceToken, {
      jsonrpc: '2.0',
      id: 2,
      method: 'resources/read',
      params: { uri: 'ui://compliance-mcp/../../etc/passwd' },
    });
    expect(body.error).toEqual({
      code: -32602,
      message: 'Resource not found: ui://compliance-mcp/../../etc/passwd',
    });
  });

  it('keeps the whole result as text and structured content for hosts that render no view', async () => {
    const body = await post(world.aliceToken, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'getComplianceSummary', arguments: { organization_id: world.orgA } },
    });
    const result = body.result as { content: { type: string; text: string }[]; structuredContent: unknown };
    expect(result.content[0]?.type).toBe('text');
    const text = JSON.parse(result.content[0]?.text ?? '') as { organization_id: string; risks: unknown };
    expect(text.organization_id).toBe(world.orgA);
    expect(result.structuredContent).toEqual(text);
  });

  it('lets a view call only read tools', () => {
    const calls = CHAT_VIEWS.flatMap((view) => [view.tool, ...view.calls]);
    expect(calls.map((tool) => TOOLS.get(tool.name)?.scope)).toEqual(calls.map(() => 'read'));
    expect(CHAT_VIEWS.find((view) => view.name === 'risk-heat-map')?.calls.map((tool) => tool.name)).toEqual([
      'listRisks',
    ]);
  });
});
