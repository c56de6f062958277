// The input limits on the Worker host (docs/security.md, "Input limits"), inside workerd: the 150 KB XLSX
// zip bomb uploaded to the register import is refused at its inflate limit (a Worker isolate has 128 MB; the bomb
// inflates to 150 MB), one importRecords call takes at most 10,000 rows, and an OSCAL catalog is measured before it
// is parsed. (Timing a pattern here says little: a Worker's clock stands still between I/O; test/core times them.)
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { xlsxBomb } from '../attacks.ts';
import { browserSession, csrfOf } from '../browser-session.ts';
import { BASE, type ContractHost, callDirect, errorOf, ok } from '../contract/host.ts';
import { cliTokenService, testDatabase, world } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';
const host: ContractHost = { fetch: (request) => exports.default.fetch(request), world };

/** A user of their own organization, signed in on the Worker, with a read_write token. */
async function owner(name: string) {
  const database = testDatabase();
  const email = `${name}-${crypto.randomUUID()}@example.com`;
  const user = await createUser(database.db, new Date(), { emailVerified: true, email, password: PASSWORD });
  const organizationId = (
    await createOrganization(database.db, new Date(), { name: `Worker ${name}`, ownerId: user.id })
  ).id;
  const { token } = await cliTokenService(database).create({
    userId: user.id,
    name: `worker ${name}`,
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  database.client.close();
  const session = browserSession((request) => exports.default.fetch(request), BASE);
  expect((await session.signIn({ email, password: PASSWORD })).status).toBe(303);
  return { organizationId, token, session };
}

describe('input limits on the Worker', () => {
  it('refuses the 150 KB XLSX bomb at the register import, naming the ratio limit, and writes nothing', async () => {
    const { organizationId, token, session } = await owner('bomb');
    const path = `/orgs/${organizationId}/risks/import`;
    const form = new FormData();
    form.append('_csrf', csrfOf(await (await session.send(path)).text()));
    form.append('file', new File([await xlsxBomb({ inflatedBytes: 150_000_000 })], 'bomb.xlsx'));
    const response = await session.send(path, { method: 'POST', body: form });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'The workbook is refused: its part xl/sharedStrings.xml inflates to more than 100 times its compressed size, the ratio limit (a zip bomb?).',
    );
    const risks = await ok<{ total_count: number }>(host, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(risks.total_count).toBe(0);
  });

  it('refuses an importRecords call of 150,000 short rows at row 10,002', async () => {
    const { organizationId, token } = await owner('rows');
    const csv = `name\n${Array.from({ length: 150_000 }, (_, index) => `v${index.toString(36)}`).join('\n')}`;
    const refused = await callDirect(host, token, 'importRecords', {
      organization_id: organizationId,
      kind: 'vendor',
      csv,
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).details).toEqual([{ path: 'row 10002', message: 'More than 10000 rows' }]);
  });

  it('refuses an OSCAL catalog nested deeper than 64 levels before parsing it', async () => {
    const { organizationId, token } = await owner('oscal');
    const framework = await ok<{ framework: { id: string } }>(host, token, 'addFramework', {
      organization_id: organizationId,
      name: 'Deep',
    });
    let parts: unknown = { name: 'item', prose: 'deep' };
    for (let depth = 0; depth < 40; depth++) parts = { name: 'item', parts: [parts] };
    const content = JSON.stringify({
      catalog: {
        controls: [{ id: 'ac-1', title: 'Policy', parts: [{ name: 'statement', parts: [parts] }] }],
      },
    });
    const refused = await callDirect(host, token, 'importFrameworkCatalog', {
      framework_id: framework.framework.id,
      format: 'oscal',
      content,
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toBe(
      'The catalog is refused: it nests more than 64 levels deep, the limit of a parse.',
    );
  });
});
