// Runs the official MCP conformance server scenarios against the Node host, through a proxy that adds the token
// (the suite cannot send an Authorization header). Usage: npm run conformance [-- scenario ...]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startNodeServer } from '../src/node.ts';

export const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/** Forwards every request unchanged (Host and Origin included) and adds the bearer token. */
export function startAuthProxy(
  upstreamPort: number,
  token: string,
): Promise<{ port: number; close(): Promise<void> }> {
  const proxy = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => {
    proxy.listen(0, '127.0.0.1', () => {
      resolve({
        port: (proxy.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            proxy.close(() => done());
            proxy.closeAllConnections();
          }),
      });
    });
  });
}

function runScenario(url: string, scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'npx',
      ['--no-install', 'conformance', 'server', '--url', url, '--scenario', scenario],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

export async function runConformance(scenarios: string[], log: (line: string) => void): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-conformance-'));
  const server = await startNodeServer(
    loadConfig({ DATABASE_URL: `file:${join(dir, 'conformance.db')}`, PORT: '0', HOST: '127.0.0.1' }),
    () => {},
  );
  const proxy = await startAuthProxy(Number(new URL(server.url).port), server.demo?.token ?? '');
  let failed = 0;
  try {
    for (const scenario of scenarios) {
      // `localhost`: the DNS-rebinding scenario only runs against a localhost URL.
      const result = await runScenario(`http://localhost:${proxy.port}/api/mcp/v1`, scenario);
      log(`${result.code === 0 ? 'PASS' : 'FAIL'} ${scenario}`);
      if (result.code !== 0) {
        failed += 1;
        log(result.output);
      }
    }
  } finally {
    await proxy.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  log(`${scenarios.length - failed} passed, ${failed} failed`);
  return failed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv.slice(2);
  process.exitCode = (await runConformance(asked.length > 0 ? asked : SCENARIOS, console.log)) > 0 ? 1 : 0;
}
