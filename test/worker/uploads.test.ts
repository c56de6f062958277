// Web uploads on the Worker (src/web/uploads.ts): the evidence form's file streamed into R2 behind the form's first
// part, the session's CSRF token; a forged token is refused with the "Form expired" page and stores nothing.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { browserSession, csrfOf } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { blobCount, testDatabase } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';

/** A signed-in browser on the Worker. */
async function browser(email: string) {
  const session = browserSession((request) => exports.default.fetch(request), BASE);
  expect((await session.signIn({ email, password: PASSWORD })).status).toBe(303);
  return session;
}

describe('web uploads on the Worker', () => {
  it('streams the evidence file behind the token into R2, and refuses a forged token storing nothing', async () => {
    const database = testDatabase();
    const email = `uploader-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: PASSWORD,
    });
    const org = (await createOrganization(database.db, new Date(), { name: 'Upload Org', ownerId: user.id }))
      .id;
    const vendor = `ven_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const now = new Date().toISOString();
    await database.client.execute({
      sql: 'insert into vendors (id, organization_id, name, category, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
      args: [vendor, org, 'Storage vendor', 'OTHER', now, now],
    });
    const { send } = await browser(email);
    const csrf = csrfOf(await (await send(`/orgs/${org}/vendors/${vendor}`)).text());
    const bytes = new Uint8Array(3 * 1024 * 1024).map((_, index) => (index * 13) % 256);
    const form = (token: string) => {
      const body = new FormData();
      body.append('_csrf', token);
      body.append('record_id', vendor);
      body.append('title', 'SOC 2 report');
      body.append('file', new File([bytes], 'soc2.bin'));
      return body;
    };
    const blobsBefore = await blobCount();
    const forged = await send(`/orgs/${org}/evidence/attach`, { method: 'POST', body: form('x'.repeat(43)) });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('Form expired');
    expect(await blobCount()).toBe(blobsBefore);

    const posted = await send(`/orgs/${org}/evidence/attach`, { method: 'POST', body: form(csrf) });
    expect(posted.status).toBe(303);
    const rows = await database.client.execute({
      sql: "select name, size from stored_files where organization_id = ? and name = 'soc2.bin'",
      args: [org],
    });
    expect(rows.rows.map((row) => [row.name, Number(row.size)])).toEqual([['soc2.bin', bytes.byteLength]]);
    expect(await blobCount()).toBe(blobsBefore + 1);
  });
});
