// The operator CLI: one JSON line per command on stdout, errors on stderr with a non-zero exit code.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLink } from '../../src/account-links.ts';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.ts';
import { openNodeDatabase } from '../../src/db/open-node.ts';
import {
  apiTokens,
  oauthClients,
  oauthGrants,
  recordChanges,
  requirements,
  toolCalls,
  users,
} from '../../src/db/schema.ts';
import { oscalCatalog } from '../catalogs.ts';
import { runCli } from '../cli-run.ts';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-cli-'));
  env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...argv: string[]) => runCli(env, ...argv);

async function json(...argv: string[]): Promise<Record<string, unknown>> {
  const result = await cli(...argv);
  expect(result.code, result.err.join('\n')).toBe(0);
  expect(result.out).toHaveLength(1);
  return JSON.parse(result.out[0] ?? '') as Record<string, unknown>;
}

describe('compliance-mcp CLI', () => {
  let orgId: string;
  let tokenId: string;

  it('migrates', async () => {
    expect(await json('migrate')).toMatchObject({ ok: true, search_indexes_merged: [] });
  });

  it('creates a user, an organization, a member and tokens', async () => {
    expect(
      (
        await json(
          'user',
          'create',
          '--email',
          'Owner@Example.com',
          '--password',
          'long enough pw',
          '--name',
          'Olive',
        )
      ).id,
    ).toMatch(/^usr_/);
    expect(
      (await json('user', 'create', '--email', 'viewer@example.com', '--password', 'long enough pw')).id,
    ).toMatch(/^usr_/);
    orgId = String((await json('org', 'create', '--name', 'Acme', '--owner', 'owner@example.com')).id);
    expect(orgId).toMatch(/^org_/);
    expect(
      await json('member', 'add', '--org', orgId, '--email', 'viewer@example.com', '--role', 'viewer'),
    ).toEqual({ ok: true });
    const token = await json(
      'token',
      'create',
      '--email',
      'owner@example.com',
      '--name',
      'CI',
      '--scope',
      'read',
      '--org',
      orgId,
      '--expires-in-days',
      '30',
    );
    expect(token.id).toMatch(/^tok_/);
    expect(token.token).toMatch(/^cmcp_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(String(token.expires_at)) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    tokenId = String(token.id);
  });

  it('lists tokens without their secrets', async () => {
    const { tokens } = (await json('token', 'list', '--email', 'owner@example.com')) as {
      tokens: Record<string, unknown>[];
    };
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({
      id: tokenId,
      name: 'CI',
      scope: 'read',
      organization_ids: [orgId],
      state: 'active',
    });
    expect(JSON.stringify(tokens)).not.toMatch(/cmcp_[A-Za-z0-9_-]{20}/);
    expect(tokens[0]).not.toHaveProperty('token_hash');
  });

  it('revokes a token, and refuses to revoke it twice', async () => {
    expect(await json('token', 'revoke', '--id', tokenId)).toEqual({ ok: true });
    const { tokens } = (await json('token', 'list', '--email', 'owner@example.com')) as {
      tokens: { state: string }[];
    };
    expect(tokens[0]?.state).toBe('revoked');
    const again = await cli('token', 'revoke', '--id', tokenId);
    expect(again.code).toBe(1);
    expect(again.out).toEqual([]);
  });

  it('takes --expires-at and refuses both expiry options at once', async () => {
    const tokenCreate = (...expiry: string[]) => [
      'token',
      'create',
      '--email',
      'owner@example.com',
      '--name',
      'x',
      ...expiry,
    ];
    const at = new Date(Date.now() + 5 * 86_400_000).toISOString();
    expect((await json(...tokenCreate('--expires-at', at))).expires_at).toBe(at);
    const both = await cli(...tokenCreate('--expires-at', at, '--expires-in-days', '3'));
    expect(both.code).toBe(2);
    // At most a year, as in the web form.
    for (const expiry of [
      ['--expires-in-days', '366'],
      ['--expires-in-days', '0'],
      ['--expires-at', new Date(Date.now() + 366 * 86_400_000).toISOString()],
      ['--expires-at', new Date(Date.now() - 60_000).toISOString()],
    ]) {
      const refused = await cli(...tokenCreate(...expiry));
      expect(refused.code).toBe(2);
      expect(refused.out).toEqual([]);
    }
    const year = await json(...tokenCreate('--expires-in-days', '365'));
    expect(Date.parse(String(year.expires_at)) - Date.now()).toBeGreaterThan(364 * 86_400_000);
  });

  it('lists and revokes a person’s connected clients, and forgets clients unused for 90 days or never consented to in a day', async () => {
    const database = await openNodeDatabase(env.DATABASE_URL ?? '');
    try {
      const { db } = database;
      const [owner] = await db.select().from(users).where(eq(users.email, 'owner@example.com'));
      const userId = owner?.id ?? '';
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const client = (id: string, createdDaysAgo: number) => ({
        client_id: id,
        kind: 'registered' as const,
        client_name: id,
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        token_endpoint_auth_method: 'none' as const,
        metadata: '{}',
        created_at: daysAgo(createdDaysAgo),
      });
      // Old and unused; old but connected 10 days ago; registered 5 days ago and never consented to; an hour old.
      await db
        .insert(oauthClients)
        .values([
          client('cli_old', 120),
          client('cli_used', 120),
          client('cli_unconsented', 5),
          client('cli_new', 1 / 24),
        ]);
      await db.insert(oauthGrants).values({
        id: 'grt_used',
        user_id: userId,
        client_id: 'cli_used',
        client_name: 'Claude',
        redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
        scope: 'read',
        organization_ids: null,
        resource: 'http://127.0.0.1/api/mcp/v1',
        created_at: daysAgo(10),
        expires_at: daysAgo(-20),
      });
      await db.insert(apiTokens).values({
        id: 'tok_fromgrant',
        user_id: userId,
        name: 'Claude',
        token_hash: 'x'.repeat(64),
        prefix: 'cmcp_xxxx',
        scope: 'read',
        created_at: daysAgo(10),
        expires_at: daysAgo(-1),
        grant_id: 'grt_used',
      });
    } finally {
      database.client.close();
    }
    const { clients } = (await json('client', 'list', '--email', 'owner@example.com')) as {
      clients: { id: string; clientName: string; state: string }[];
    };
    expect(clients.map(({ id, clientName, state }) => ({ id, clientName, state }))).toEqual([
      { id: 'grt_used', clientName: 'Claude', state: 'active' },
    ]);
    const purge = (await json('client', 'purge')) as { purged: string[]; unused_days: number };
    expect({ ...purge, purged: [...purge.purged].sort() }).toEqual({
      purged: ['cli_old', 'cli_unconsented'],
      unused_days: 90,
    });
    expect(await json('client', 'revoke', '--email', 'owner@example.com', '--id', 'grt_used')).toEqual({
      ok: true,
    });
    const after = (await json('client', 'list', '--email', 'owner@example.com')) as {
      clients: { state: string }[];
    };
    expect(after.clients[0]?.state).toBe('revoked');
    expect((await cli('client', 'revoke', '--email', 'owner@example.com', '--id', 'grt_used')).code).toBe(1);
  });

  it('confirms addresses: the first account at once, others by `user verify` or a printed link', async () => {
    const database = await openNodeDatabase(String(env.DATABASE_URL));
    const verifiedAt = async (email: string) =>
      (await database.db.select().from(users).where(eq(users.email, email)))[0]?.email_verified_at ?? null;
    try {
      expect(await verifiedAt('owner@example.com')).not.toBeNull();
      expect(await verifiedAt('viewer@example.com')).toBeNull();
      const printed = await json('user', 'verify', 'viewer@example.com', '--link');
      expect(printed).toMatchObject({
        email: 'viewer@example.com',
        link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/verify\/[A-Za-z0-9_-]{43}$/),
      });
      expect(await verifiedAt('viewer@example.com')).toBeNull();
      expect(await json('user', 'verify', 'viewer@example.com')).toEqual({
        email: 'viewer@example.com',
        verified: true,
      });
      expect(await verifiedAt('viewer@example.com')).not.toBeNull();
      expect(await json('user', 'verify', '--email', 'Viewer@Example.com')).toMatchObject({ already: true });
      expect(
        await json(
          'user',
          'create',
          '--email',
          'vouched@example.com',
          '--password',
          'long enough pw',
          '--verified',
        ),
      ).toMatchObject({ email_verified: true });

      // A sign-up waiting for its link (the web form on an instance without mail): the operator makes the account.
      await issueLink(database.db, new Date(), {
        purpose: 'signup',
        email: 'pending@example.com',
        userId: null,
        signUp: {
          name: 'Pat',
          password_hash: await hashPassword('chosen at sign-up'),
          organization: 'Pat Co',
          next: null,
        },
      });
      const made = await json('user', 'verify', 'pending@example.com');
      expect(made).toMatchObject({
        id: expect.stringMatching(/^usr_/),
        email: 'pending@example.com',
        verified: true,
      });
      const [pat] = await database.db.select().from(users).where(eq(users.email, 'pending@example.com'));
      expect(await verifyPassword('chosen at sign-up', pat?.password_hash ?? '')).toBe(true);

      const missing = await cli('user', 'verify', 'nobody@example.com');
      expect(missing.code).toBe(1);
      expect(missing.err.join('\n')).toContain(
        'No account, and no sign-up waiting for its link, for nobody@example.com.',
      );
      expect((await cli('user', 'verify')).code).toBe(2);
    } finally {
      database.client.close();
    }
  });

  it('prints a one-hour reset link for an account, and refuses an address without one', async () => {
    const reset = await json('user', 'reset-link', 'owner@example.com');
    expect(reset).toMatchObject({
      email: 'owner@example.com',
      link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/reset\/[A-Za-z0-9_-]{43}$/),
    });
    expect(Date.parse(String(reset.expires_at)) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(String(reset.expires_at)) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    const withPublicUrl = await runCli(
      { ...env, PUBLIC_URL: 'https://compliance.example.com' },
      'user',
      'reset-link',
      'owner@example.com',
    );
    expect(JSON.parse(withPublicUrl.out[0] ?? '{}').link).toMatch(
      /^https:\/\/compliance\.example\.com\/reset\//,
    );
    const missing = await cli('user', 'reset-link', 'nobody@example.com');
    expect(missing.code).toBe(1);
    expect(missing.err.join('\n')).toContain('No user with email nobody@example.com.');
  });

  it('seeds a demo organization and returns a working account', async () => {
    const demo = await json('seed', '--demo');
    expect(demo).toMatchObject({
      email: expect.stringMatching(/@example\.com$/),
      organization_id: expect.stringMatching(/^org_/),
    });
    expect(String(demo.token)).toMatch(/^cmcp_/);
    expect(String(demo.password).length).toBeGreaterThanOrEqual(10);
    // The seeded records have their history, made by the CLI (no token) as the demo user, and the acknowledgements
    // the demo gives through their public links by the people (surface link, no account).
    const database = await openNodeDatabase(String(env.DATABASE_URL));
    const changes = await database.db
      .select()
      .from(recordChanges)
      .where(eq(recordChanges.organization_id, String(demo.organization_id)));
    database.client.close();
    expect(changes.length).toBeGreaterThan(10);
    expect(new Set(changes.map((change) => `${change.surface} ${change.token_id}`))).toEqual(
      new Set(['cli null', 'link null']),
    );
    expect(changes.some((change) => change.kind === 'risk' && change.action === 'add')).toBe(true);
  });

  it('imports a framework catalog from a file, by framework name, with a dry run first', async () => {
    const file = join(dir, 'catalog.json');
    writeFileSync(file, oscalCatalog({ groups: 2, controls: 3, enhancements: 1 }));
    const dry = await json(
      'framework',
      'import',
      '--org',
      orgId,
      '--name',
      'Test catalog',
      '--dry-run',
      file,
    );
    // A dry run creates no framework: it plans against an empty one.
    expect(dry).toMatchObject({
      framework: { id: null, name: 'Test catalog' },
      dry_run: true,
      counts: { created: 2 + 6 + 6, skipped: 1 },
    });
    const imported = await json('framework', 'import', '--org', orgId, '--name', 'Test catalog', file);
    expect(imported).toMatchObject({
      dry_run: false,
      counts: { created: 2 + 6 + 6, updated: 0, unchanged: 0, removed: 0, skipped: 1 },
    });
    const again = await json(
      'framework',
      'import',
      '--org',
      orgId,
      '--framework',
      String((imported.framework as { id: string }).id),
      file,
    );
    expect(again).toMatchObject({ counts: { created: 0, unchanged: 14 } });
    const csvFile = join(dir, 'catalog.csv');
    writeFileSync(csvFile, 'ref,title\nX,"unclosed\n');
    const refused = await cli('framework', 'import', '--org', orgId, '--name', 'CSV', csvFile);
    expect(refused).toMatchObject({ code: 1, out: [] });
    expect(refused.err.join('\n')).toContain('row 2, column 2');
    expect((await cli('framework', 'import', '--org', orgId, '--name', 'X')).code).toBe(2);
  });

  it('adds a file as evidence for a record, streamed into FILES_DIR, and refuses a record of no register', async () => {
    const database = await openNodeDatabase(env.DATABASE_URL ?? '');
    const [requirement] = await database.db
      .select({ id: requirements.id })
      .from(requirements)
      .where(eq(requirements.organization_id, orgId))
      .limit(1);
    database.client.close();
    const file = join(dir, 'access-review.csv');
    writeFileSync(file, 'user,reviewed\nalice,yes\n');
    const withFiles = { ...env, FILES_DIR: join(dir, 'files') };
    const added = await runCli(
      withFiles,
      'evidence',
      'add',
      '--org',
      orgId,
      '--to',
      String(requirement?.id),
      file,
    );
    expect(added.code, added.err.join('\n')).toBe(0);
    expect(JSON.parse(added.out[0] ?? '')).toMatchObject({
      evidence: {
        kind: 'FILE',
        title: 'access-review.csv',
        file_name: 'access-review.csv',
        size: 24,
        content_type: 'text/csv; charset=utf-8',
        record_ids: [requirement?.id],
      },
    });
    expect(readdirSync(join(dir, 'files')).length).toBeGreaterThan(0);
    const refused = await runCli(withFiles, 'evidence', 'add', '--org', orgId, '--to', orgId, file);
    expect(refused.code).toBe(1);
    expect(refused.err.join('\n')).toContain('record_ids.0');
    expect((await runCli(withFiles, 'evidence', 'add', '--org', orgId, file)).code).toBe(2);
  });

  it('logs each write it made as a call of the tool it ran, with the call id its history rows carry', async () => {
    const file = join(dir, 'vendors.csv');
    writeFileSync(file, 'Name\nLogged vendor one\nLogged vendor two\n');
    const imported = await cli('import', '--org', orgId, '--kind', 'vendors', file);
    expect(imported.code, imported.err.join('\n')).toBe(0);
    expect((await cli('import', '--org', orgId, '--kind', 'vendors', '--dry-run', file)).code).toBe(0);
    const database = await openNodeDatabase(env.DATABASE_URL ?? '');
    try {
      const calls = await database.db.select().from(toolCalls).where(eq(toolCalls.organization_id, orgId));
      // Earlier tests of this file imported a catalog and added evidence; this one imported vendors (the dry run
      // wrote nothing, so it has no row of its own).
      expect(calls.map((call) => `${call.surface} ${call.tool} ${call.outcome}`).sort()).toEqual([
        'cli addEvidence ok',
        'cli importFrameworkCatalog ok',
        'cli importRecords ok',
      ]);
      const changes = await database.db
        .select()
        .from(recordChanges)
        .where(eq(recordChanges.organization_id, orgId));
      for (const call of calls) {
        const made = changes.filter((change) => change.call_id === call.call_id);
        expect(made.length, call.tool).toBeGreaterThan(0);
        // Imported rows are marked as imported in the history, whatever surface ran the import.
        const surface = call.tool === 'importRecords' ? 'import' : 'cli';
        expect(new Set(made.map((change) => change.surface)), call.tool).toEqual(new Set([surface]));
      }
      const vendorCall = calls.find((call) => call.tool === 'importRecords');
      expect(
        changes.filter((change) => change.call_id === vendorCall?.call_id && change.kind === 'vendor'),
      ).toHaveLength(2);
    } finally {
      database.client.close();
    }
  });

  it('prints the usage on stdout and exits 0 when asked for help', async () => {
    for (const argv of [['--help'], ['help'], ['token', 'create', '-h']]) {
      const result = await cli(...argv);
      expect(result.code).toBe(0);
      expect(result.out.join('\n')).toContain('token create --email E --name N');
      expect(result.err).toEqual([]);
    }
  });

  it.each([
    [['user', 'create', '--email', 'owner@example.com', '--password', 'long enough pw'], 1, /already exists/],
    [['user', 'create', '--email', 'short@example.com', '--password', 'short'], 1, /at least 10/],
    [['org', 'create', '--name', 'X', '--owner', 'nobody@example.com'], 1, /No user/],
    [['member', 'add', '--org', 'org_x', '--email', 'viewer@example.com', '--role', 'KING'], 2, /--role/],
    [['token', 'create', '--email', 'owner@example.com'], 2, /--name/],
    [['token', 'create', '--email', 'owner@example.com', '--name', 'x', '--scope', 'admin'], 2, /--scope/],
    [['frobnicate'], 2, /Unknown command/],
    [['user', 'create', '--bogus'], 2, /bogus/],
  ])('fails %j with exit %i and a message on stderr only', async (argv, code, message) => {
    const result = await cli(...(argv as string[]));
    expect(result.code).toBe(code);
    expect(result.out).toEqual([]);
    expect(result.err.join('\n')).toMatch(message as RegExp);
  });
});

describe('compliance-mcp backup', () => {
  it('copies the embedded database while it is open, and refuses to overwrite or to copy a remote one', async () => {
    await json('seed', '--demo');
    const to = join(dir, 'backup.db');
    const answer = await json('backup', '--to', to);
    expect(answer).toMatchObject({ ok: true, to });
    expect(answer.bytes).toBeGreaterThan(100_000);

    const copy = await openNodeDatabase(`file:${to}`);
    const original = await openNodeDatabase(env.DATABASE_URL ?? '');
    try {
      const count = async (client: typeof copy.client, table: string) =>
        Number((await client.execute(`select count(*) as n from ${table}`)).rows[0]?.n);
      for (const table of ['users', 'organizations', 'risks', 'record_changes']) {
        const n = await count(original.client, table);
        expect(n, table).toBeGreaterThan(0);
        expect(await count(copy.client, table), table).toBe(n);
      }
      expect((await copy.client.execute('pragma integrity_check')).rows[0]?.integrity_check).toBe('ok');
    } finally {
      copy.client.close();
      original.client.close();
    }

    const again = await cli('backup', '--to', to);
    expect(again.code).toBe(1);
    expect(again.err.join('\n')).toContain('already exists');
    const remote = await runCli({ DATABASE_URL: 'http://127.0.0.1:9' }, 'backup', '--to', join(dir, 'r.db'));
    expect(remote.code).toBe(1);
    expect(remote.err.join('\n')).toContain('a libSQL server (Turso, sqld) keeps its own backups');
  });
});
