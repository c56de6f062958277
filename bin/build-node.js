#!/usr/bin/env node
// Compiles the Node host (src/cli/main.ts and everything it imports) into one JavaScript file, dist/node/cli.js, so the
// server runs without a TypeScript loader: on Node 20 tsx's module hooks run on a thread of their own that holds
// about 40 MiB for the life of the process. Packages stay imports (node_modules is resolved at run time), so the
// file holds only this project's code. `npm install` runs it (`prepare`); bin/compliance-mcp.js runs it again when a
// source file is newer than the build. Usage: node bin/build-node.js [--if-stale]
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILT_CLI = join(ROOT, 'dist/node/cli.js');
/** What the build is made of: a change to any of these makes it stale. */
const INPUTS = [join(ROOT, 'src'), join(ROOT, 'tsconfig.json'), join(ROOT, 'package.json')];

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when dist/node/cli.js is missing or older than a source file. */
export function buildIsStale() {
  let built;
  try {
    built = statSync(BUILT_CLI).mtimeMs;
  } catch {
    return true;
  }
  return INPUTS.some((input) => newestMtime(input) > built);
}

/** Builds dist/node/cli.js (written beside and renamed, so a process starting meanwhile never reads half a file). */
export async function buildNode() {
  const { build, stop } = await import('esbuild');
  mkdirSync(dirname(BUILT_CLI), { recursive: true });
  const partial = `${BUILT_CLI}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(ROOT, 'src/cli/main.ts')],
    outfile: partial,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  renameSync(partial, BUILT_CLI);
  // esbuild's service process is not needed once the file is written (a server would otherwise keep it running).
  await stop();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || buildIsStale()) await buildNode();
}
