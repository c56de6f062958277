// Web forms that carry a file (src/web/uploads.ts): every signed-in POST, sent as multipart with a file and a forged,
// missing or misplaced token, is refused with the "Form expired" page and stores nothing; an upload form is read as
// a stream behind its token (a file over MAX_BODY_BYTES goes through, up to FILE_MAX_BYTES); hono's body readers
// fail on an upload left to the route, so no route can read one past the check.
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebEnv } from '../../src/web/context.ts';
import { deferCsrfCheck, isWebFileUpload, isWebUpload } from '../../src/web/uploads.ts';
import type { TestRuntime } from '../helpers.ts';
import { ok } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, type WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];
let runtime: TestRuntime;
let client: WebClient;
let organizationId: string;
let token: string;
let measureId: string;
let csrf: string;

beforeAll(async () => {
  ({ runtime, client, organizationId, token } = await signedUpRuntime(runtimes));
  const added = await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: 'MFA' });
  measureId = String((added.measure as { id: string }).id);
  csrf = csrfOf((await client.get(`/orgs/${organizationId}/measures/${measureId}`)).html);
});

afterAll(async () => {
  for (const item of runtimes) await item.cleanup();
});

/** What a refused form must not have left: stored files (rows and blobs), history rows, evidence. */
async function stored() {
  const count = async (table: string) => {
    const [row] = await runtime.database.db.all<{ n: number }>(sql.raw(`select count(*) as n from ${table}`));
    return Number(row?.n);
  };
  let blobs = 0;
  for await (const _ of runtime.files.store.list()) blobs++;
  return {
    files: await count('stored_files'),
    blobs,
    changes: await count('record_changes'),
    evidence: await count('evidence'),
  };
}

/** A multipart body as a browser sends it: the parts in the order given. */
function form(parts: [string, string | File][]): FormData {
  const body = new FormData();
  for (const [name, value] of parts) body.append(name, value);
  return body;
}

function post(path: string, body: FormData) {
  return client.request(path, { method: 'POST', body, headers: { origin: new URL(client.base).origin } });
}

const bytes = (size: number) => new Uint8Array(size).map((_, index) => (index * 7) % 251);

describe('web uploads behind the CSRF check', () => {
  it('refuses every signed-in POST route, sent as multipart with a file and a bad token, and stores nothing', async () => {
    const paths = [
      ...new Set(
        runtime.app.routes
          .filter((route) => route.method === 'POST')
          .map((route) => route.path)
          .filter((path) => !path.includes('*'))
          .filter((path) =>
            /^\/(orgs|settings|notifications|my-work|logout|oauth\/authorize)(\/|$)/.test(path),
          ),
      ),
    ].map((path) =>
      path.replace(/:([a-z_]+)(\{[^}]*\})?/gi, (_, name: string) =>
        name === 'org' ? organizationId : name === 'register' ? 'measures' : measureId,
      ),
    );
    // The upload forms are among them (their routes read the token themselves); the audit checklist's import is
    // listed with a measure's id here, which its path does not take.
    expect(paths.filter(isWebUpload).sort()).toEqual([
      `/orgs/${organizationId}/evidence/attach`,
      `/orgs/${organizationId}/measures/import`,
      `/orgs/${organizationId}/questionnaire-templates/import`,
    ]);
    expect(isWebUpload(`/orgs/${organizationId}/audits/aud_${'a'.repeat(24)}/checklist/import`)).toBe(true);
    expect(paths.length).toBeGreaterThan(20);
    const before = await stored();
    const file = () => new File([bytes(4096)], 'evidence.csv', { type: 'text/csv' });
    const forgeries: [string, FormData][] = [
      [
        'wrong token',
        form([
          ['_csrf', 'x'.repeat(43)],
          ['record_id', measureId],
          ['file', file()],
        ]),
      ],
      [
        'no token',
        form([
          ['record_id', measureId],
          ['title', 'T'],
          ['file', file()],
        ]),
      ],
      [
        'token as a file',
        form([
          ['_csrf', new File([csrf], 'token.txt')],
          ['file', file()],
        ]),
      ],
    ];
    // On an upload form the session's token counts only as its first part (other forms take it anywhere).
    const uploadForgery: [string, FormData] = [
      'token after the file',
      form([
        ['record_id', measureId],
        ['file', file()],
        ['_csrf', csrf],
      ]),
    ];
    const refused: string[] = [];
    for (const path of paths)
      for (const [what, body] of isWebUpload(path) ? [...forgeries, uploadForgery] : forgeries) {
        const answer = await post(path, body);
        if (answer.status !== 403 || !textOf(answer.html).includes('Form expired'))
          refused.push(`${path} (${what}): ${answer.status}`);
      }
    expect(refused).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('streams an evidence file larger than MAX_BODY_BYTES behind its token, and reads the fields before it', async () => {
    const size = runtime.config.maxBodyBytes + 512 * 1024;
    const posted = await post(
      `/orgs/${organizationId}/evidence/attach`,
      form([
        ['_csrf', csrf],
        ['record_id', measureId],
        ['title', 'Access review export'],
        ['valid_until', '2099-12-31'],
        ['file', new File([bytes(size)], 'review.bin')],
      ]),
    );
    expect(posted.status).toBe(303);
    const listed = await ok(runtime, token, 'listEvidence', {
      organization_id: organizationId,
      filter: { record_id: measureId },
    });
    expect(listed.evidence).toMatchObject([
      { kind: 'FILE', title: 'Access review export', valid_until: '2099-12-31', file_name: 'review.bin' },
    ]);
    const [row] = await runtime.database.db.all<{ size: number }>(
      sql`select size from stored_files where name = 'review.bin'`,
    );
    expect(row?.size).toBe(size);
  });

  it('takes a link when the file input is left empty, as a browser sends it', async () => {
    const posted = await post(
      `/orgs/${organizationId}/evidence/attach`,
      form([
        ['_csrf', csrf],
        ['record_id', measureId],
        ['url', 'https://wiki.example.com/mfa'],
        ['file', new File([], '', { type: 'application/octet-stream' })],
      ]),
    );
    expect(posted.status).toBe(303);
    const after = await client.get(`/orgs/${organizationId}/measures/${measureId}`);
    expect(textOf(after.html)).toContain('Evidence added: https://wiki.example.com/mfa.');
  });

  it('makes hono body readers fail on an upload left to its route', async () => {
    const app = new Hono<WebEnv>();
    app.post('/orgs/:org/evidence/attach', async (c) => {
      deferCsrfCheck(c);
      const reads = await Promise.allSettled([c.req.parseBody(), c.req.formData(), c.req.text()]);
      return c.json(reads.map((read) => read.status));
    });
    const answer = await app.request('/orgs/org_1/evidence/attach', {
      method: 'POST',
      body: form([['_csrf', csrf]]),
    });
    expect(await answer.json()).toEqual(['rejected', 'rejected', 'rejected']);
    expect([isWebFileUpload('/orgs/o/evidence/attach'), isWebFileUpload('/orgs/o/risks/import')]).toEqual([
      true,
      false,
    ]);
  });
});
