// Node side of the Worker's webhook test: an HTTP receiver on loopback that answers 204 and records each delivery's
// headers and body as sent, and a listing of them (GET /received) the test in workerd reads and verifies.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
}

export async function startWebhookSink(): Promise<{ url: string; close(): Promise<void> }> {
  const received: ReceivedDelivery[] = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/received') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(received));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string') headers[name] = value;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
