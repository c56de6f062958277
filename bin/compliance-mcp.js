#!/usr/bin/env node
// Operator CLI entry: loads src/cli.ts through tsx so the package runs from source on Node 20 and 22+.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
