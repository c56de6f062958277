#!/usr/bin/env node
// Runs a TypeScript entry point on Node 20+ by registering tsx's loader first (Node 20 cannot strip types).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts.js <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0] ?? 'node', resolve(entry), ...rest];
await import(pathToFileURL(resolve(entry)).href);
