// The compiled Node host (bin/build-node.js -> dist/node/cli.js) that `npm start` and the `compliance-mcp` bin run:
// built when stale, complete (no project file left to load through a TypeScript loader) and importing only packages
// a production install (`npm ci --omit=dev`) has.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without type declarations.
import { BUILT_CLI, buildIsStale } from '../../bin/build-node.js';

const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** Every module specifier the file imports, statically or dynamically. */
function importedSpecifiers(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']/gm))
    found.add(match[1]!);
  for (const match of code.matchAll(/^import\s*["']([^"']+)["']/gm)) found.add(match[1]!);
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  return [...found];
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

describe('the compiled Node host', () => {
  it('is built by the bin when stale and by npm install, and then runs the CLI', () => {
    expect(packageJson.scripts.prepare).toBe('node bin/build-node.js');
    const help = execFileSync(process.execPath, ['bin/compliance-mcp.js', '--help'], { encoding: 'utf8' });
    expect(help).toContain('Usage: compliance-mcp <command>');
    expect(buildIsStale()).toBe(false);
  });

  it('holds every project module and imports only Node built-ins and runtime dependencies', () => {
    const code = readFileSync(BUILT_CLI, 'utf8');
    const specifiers = importedSpecifiers(code);
    expect(specifiers).toContain('@libsql/client');
    expect(specifiers).toContain('hono');
    const builtins = new Set(builtinModules);
    const outside = specifiers.filter((specifier) => {
      if (specifier.startsWith('node:') || builtins.has(specifier)) return false;
      return !(packageOf(specifier) in packageJson.dependencies);
    });
    expect(outside).toEqual([]);
    // No relative import is left: the project's own files are all inside the one file.
    expect(specifiers.filter((specifier) => specifier.startsWith('.'))).toEqual([]);
  });
});
