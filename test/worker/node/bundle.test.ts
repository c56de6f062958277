// The deployable bundle (`wrangler deploy --dry-run`): builds, holds no Node built-in import and no `new Function`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Workers Free refuses a script over 3 MB after gzip (Paid: 10 MB).
const FREE_PLAN_GZIP_LIMIT = 3 * 1024 * 1024;

let outdir: string;
let bundle: string;
let wranglerOutput: string;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'cmcp-bundle-'));
  const wrangler = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  const result = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir], {
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
    timeout: 90_000,
  });
  wranglerOutput = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${wranglerOutput}`);
  bundle = readFileSync(join(outdir, 'worker.js'), 'utf8');
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('wrangler deploy --dry-run', () => {
  it('bundles src/worker.ts with the KV binding and reports the upload size', () => {
    expect(wranglerOutput).toMatch(/Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/);
    expect(wranglerOutput).toContain('env.TOKEN_CACHE');
    const raw = Buffer.byteLength(bundle);
    const gzip = gzipSync(bundle).byteLength;
    console.info(
      `[bundle] worker.js ${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip`,
    );
    expect(gzip).toBeLessThan(FREE_PLAN_GZIP_LIMIT);
  });

  it('contains no `new Function` (Workers refuse code generation)', () => {
    expect(bundle).not.toMatch(/new\s+Function\s*\(/);
  });

  it('imports no Node built-in module', () => {
    expect(bundle).not.toMatch(/\bfrom\s*["']node:/);
    expect(bundle).not.toMatch(/\bimport\s*\(\s*["']node:/);
    expect(bundle).not.toMatch(/\brequire\s*\(\s*["']node:/);
    expect(bundle).not.toMatch(/\bfrom\s*["'](fs|path|crypto|os|net|tls|child_process|worker_threads)["']/);
  });

  it('bundles no ajv and uses the web libSQL client, not the native one', () => {
    // SDK 1.x's Server imported ajv (the stub of wrangler.toml [alias] stood in); the 2.x Server imports none.
    expect(bundle).not.toContain('node_modules/ajv/');
    expect(bundle).toContain('node_modules/@libsql/client/lib-esm/web.js');
    expect(bundle).not.toContain('node_modules/@libsql/client/lib-esm/sqlite3.js');
    expect(bundle).not.toContain('node_modules/libsql/');
  });
});
