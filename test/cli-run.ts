// The operator CLI run in process, as the tests call it: its exit code and the lines it wrote to stdout and stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';

export async function runCli(
  env: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    env,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out, err };
}

/** The CLI bound to one database, its output lines joined. */
export type BoundCli = (...argv: string[]) => Promise<{ code: number; out: string; err: string }>;

/**
 * A database file in a temporary folder (`prefix`), migrated, with an owner (owner@example.com) and an organization
 * (CLI Org), all made through the CLI as an operator would: the folder, its settings, the CLI bound to it, the
 * organization's id, and `remove` (the folder).
 */
export async function cliOrganization(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
  const cli: BoundCli = async (...argv) => {
    const { code, out, err } = await runCli(env, ...argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  for (const argv of [
    ['migrate'],
    ['user', 'create', '--email', 'owner@example.com', '--password', 'a long password'],
  ]) {
    const done = await cli(...argv);
    if (done.code !== 0) throw new Error(`${argv.join(' ')} exited ${done.code}: ${done.err}`);
  }
  const orgId = String(
    JSON.parse((await cli('org', 'create', '--name', 'CLI Org', '--owner', 'owner@example.com')).out).id,
  );
  return { dir, env, cli, orgId, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
