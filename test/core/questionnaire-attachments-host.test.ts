// A file attached through a questionnaire link over the Node host's HTTP edge on 127.0.0.1: a body larger than
// MAX_BODY_BYTES (the answers' limit) but within the file limit passes the edge and is stored; one past the file
// limit is refused before it is read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startNodeServer } from '../../src/node.ts';
import { createActor, createOrg, createToken } from '../helpers.ts';

const MAX_BODY = 256 * 1024;
const FILE_MAX = 2 * 1024 * 1024;

let dir: string;
let server: RunningServer;
let token: string;
let org: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-questionnaire-host-'));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'q.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    MAX_BODY_BYTES: String(MAX_BODY),
    FILE_MAX_BYTES: String(FILE_MAX),
    RATE_LIMIT_PER_MINUTE: '0',
  });
  server = await startNodeServer(config, () => undefined);
  const alice = await createActor(server.runtime, 'alice');
  org = await createOrg(server.runtime, alice, 'Buyer');
  token = await createToken(server.runtime, alice);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/api/mcp/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  expect(response.status, tool).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('questionnaire attachments over the Node host', () => {
  it('lets a file larger than the answers limit through the edge, and refuses one past the file limit', async () => {
    const vendor = (await call('addVendor', { organization_id: org, name: 'Cloudy' })).vendor as {
      id: string;
    };
    const template = (
      await call('addQuestionnaireTemplate', {
        organization_id: org,
        name: 'Short',
        questions: [{ key: 'certs', topic: 'Certifications', text: 'Which reports?', answer_type: 'TEXT' }],
      })
    ).questionnaire_template as { id: string };
    const sent = await call('sendVendorQuestionnaire', {
      vendor_id: vendor.id,
      template_id: template.id,
      contact_name: 'Vera',
      contact_email: 'vera@cloudy.example',
      due_date: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
    });
    const path = String(sent.link_path);
    const opened = await fetch(`${server.url}${path}`);
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
    expect(csrf).not.toBe('');
    const post = (size: number) => {
      const body = new FormData();
      body.append('_csrf', csrf);
      body.append('attach_question', 'certs');
      body.append('attachment', new File([new Uint8Array(size).fill(0x41)], 'report.txt'));
      return fetch(`${server.url}${path}/attach`, {
        method: 'POST',
        body,
        headers: { cookie, origin: server.url },
      });
    };
    const stored = await post(MAX_BODY * 4);
    expect(stored.status).toBe(200);
    expect(await stored.text()).toContain('Attached: report.txt (1.0 MB)');
    const refused = await post(FILE_MAX + 128 * 1024);
    expect(refused.status).toBe(413);
    await refused.arrayBuffer();
  });
});
