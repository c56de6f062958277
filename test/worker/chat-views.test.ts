// The chat views (MCP Apps resources) served by the Worker: listed and read on both eras inside workerd, the document's
// script hash computed there with WebCrypto, the tools naming their views.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE } from '../contract/host.ts';
import { cliTokenService, newAliceToken, testDatabase } from './helpers.ts';

const VIEWS = [
  'ui://compliance-mcp/framework-coverage.html',
  'ui://compliance-mcp/my-work.html',
  'ui://compliance-mcp/risk-heat-map.html',
  'ui://compliance-mcp/statement-of-applicability.html',
];
const UI_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
};
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'worker-views', version: '1' },
};

async function aliceToken(): Promise<string> {
  const database = testDatabase();
  const created = await newAliceToken(cliTokenService(database));
  database.client.close();
  return created.token;
}

/** One JSON-RPC request to the Worker's MCP endpoint; `modern`: the 2026-07-28 envelope and headers. */
async function rpc(token: string, method: string, params: Record<string, unknown>, modern: boolean) {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/v1?toolsets=risks,frameworks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method } : {}),
        // 2026-07-28 mirrors a resources/read's uri in Mcp-Name.
        ...(modern && typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: modern ? { ...params, _meta: ENVELOPE } : params,
      }),
    }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as { result: Record<string, unknown> };
}

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

describe.each([
  ['2025-11-25', false],
  ['2026-07-28', true],
])('chat views on the Worker, %s', (_era, modern) => {
  it('lists the views with the MCP Apps MIME type and reads each with a policy naming its style and script hashes', async () => {
    const token = await aliceToken();
    const listed = (await rpc(token, 'resources/list', {}, modern)).result.resources as {
      uri: string;
      mimeType: string;
      _meta: unknown;
    }[];
    expect(listed.map((resource) => resource.uri).sort()).toEqual(VIEWS);
    expect(listed.map((resource) => resource.mimeType)).toEqual(VIEWS.map(() => 'text/html;profile=mcp-app'));
    for (const uri of VIEWS) {
      const contents = (await rpc(token, 'resources/read', { uri }, modern)).result.contents as {
        uri: string;
        mimeType: string;
        text: string;
        _meta: unknown;
      }[];
      expect(contents.map(({ uri: read, mimeType, _meta }) => ({ uri: read, mimeType, _meta }))).toEqual([
        { uri, mimeType: 'text/html;profile=mcp-app', _meta: UI_META },
      ]);
      const html = contents[0]?.text ?? '';
      const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? '';
      const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
      expect(script.length).toBeGreaterThan(1000);
      expect(html).toContain(
        `script-src 'sha256-${await sha256(script)}'; style-src 'sha256-${await sha256(style)}'; img-src 'none'; connect-src 'none'`,
      );
    }
  });

  it("names each view from its tool's _meta", async () => {
    const token = await aliceToken();
    const tools = (await rpc(token, 'tools/list', {}, modern)).result.tools as {
      name: string;
      _meta?: unknown;
    }[];
    const linked = Object.fromEntries(
      tools.filter((tool) => tool._meta).map((tool) => [tool.name, tool._meta]),
    );
    expect(linked).toEqual({
      getComplianceSummary: { ui: { resourceUri: 'ui://compliance-mcp/risk-heat-map.html' } },
      getStatementOfApplicability: {
        ui: { resourceUri: 'ui://compliance-mcp/statement-of-applicability.html' },
      },
      getFrameworkCoverage: { ui: { resourceUri: 'ui://compliance-mcp/framework-coverage.html' } },
      myWork: { ui: { resourceUri: 'ui://compliance-mcp/my-work.html' } },
    });
  });
});
