// A webhook receiver on loopback for tests and the crash test: verifies every delivery with the independent
// `standardwebhooks` package, and answers as told (accept, fail, drop the connection, answer late, answer 10 MB, redirect).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Answer =
  | { kind: 'ok' }
  | { kind: 'status'; status: number }
  | { kind: 'drop' }
  | { kind: 'late'; ms: number }
  | { kind: 'huge'; bytes: number }
  | { kind: 'redirect'; location: string };

export interface Received {
  id: string;
  type: string;
  body: Record<string, unknown>;
  signatures: string;
  /** Verified with each of the receiver's secrets, in order. */
  verified: boolean[];
}

export interface Receiver {
  url: string;
  /** Requests whose signature verified with none of the secrets. */
  badSignatures: number;
  /** Deliveries whose signature verified with at least one secret. */
  received: Received[];
  /** Requests of any kind that arrived. */
  requests: number;
  /** For `huge`: whether the response was written to its end before the sender closed the connection. */
  hugeFinished: boolean[];
  secrets: string[];
  /** How to answer the n-th request (from 1), given its webhook-id. */
  answer: (request: number, id: string) => Answer;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function verifiedWith(secret: string, body: string, req: IncomingMessage): boolean {
  try {
    new Webhook(secret).verify(body, req.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

export async function startReceiver(secrets: string[] = []): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    badSignatures: 0,
    received: [],
    requests: 0,
    hugeFinished: [],
    secrets,
    answer: () => ({ kind: 'ok' }),
    close: async () => undefined,
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    receiver.requests += 1;
    const answer = receiver.answer(receiver.requests, String(req.headers['webhook-id']));
    const body = await readBody(req);
    if (answer.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    const verified = receiver.secrets.map((secret) => verifiedWith(secret, body, req));
    if (!verified.some(Boolean)) receiver.badSignatures += 1;
    if (verified.some(Boolean) && ['ok', 'huge', 'late'].includes(answer.kind)) {
      const parsed = JSON.parse(body) as { type: string };
      receiver.received.push({
        id: String(req.headers['webhook-id']),
        type: parsed.type,
        body: parsed as Record<string, unknown>,
        signatures: String(req.headers['webhook-signature']),
        verified,
      });
    }
    if (answer.kind === 'status') res.writeHead(answer.status).end('no');
    else if (answer.kind === 'redirect') res.writeHead(302, { location: answer.location }).end();
    else if (answer.kind === 'late') setTimeout(() => res.writeHead(200).end('late'), answer.ms).unref();
    else if (answer.kind === 'huge') {
      const index = receiver.hugeFinished.push(false) - 1;
      res.on('finish', () => {
        receiver.hugeFinished[index] = true;
      });
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let left = answer.bytes;
      const pump = () => {
        while (left > 0) {
          left -= chunk.byteLength;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    } else if (verified.some(Boolean)) res.writeHead(200).end('ok');
    else res.writeHead(400).end('bad signature');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
