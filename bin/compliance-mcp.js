#!/usr/bin/env node
// Operator CLI entry. Runs the compiled host, dist/node/cli.js (bin/build-node.js), building it first when a source
// file is newer, so the process carries no TypeScript loader; without esbuild (a production install that cannot
// build) and no build, it runs src/cli/main.ts through tsx as before.
import { pathToFileURL } from 'node:url';
import { BUILT_CLI, buildIsStale, buildNode } from './build-node.js';

async function loadMain() {
  if (buildIsStale()) {
    try {
      await buildNode();
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      const { register } = await import('tsx/esm/api');
      register();
      return (await import('../src/cli/main.ts')).main;
    }
  }
  return (await import(pathToFileURL(BUILT_CLI).href)).main;
}

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
