// The web's rooms keep to themselves: a page group (src/web/<group>/) imports its own files, the shared modules at
// src/web/*.ts(x) and code outside the web, never another group; the shared modules import no group (only the root,
// src/web/index.tsx, puts the groups together); and nothing outside src/web/ imports the web (notify/ builds links
// from the register specs); only the app factory and the hosts, which mount it, do.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../source-files.ts';

const SRC = resolve(import.meta.dirname, '../../src');
const WEB = join(SRC, 'web');

/** The relative imports of a file, resolved to paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g))
    found.push(resolve(dirname(file), match[1] as string));
  return found;
}

/** The page group of a path under src/web/ ('registers', 'account', ...), or null for a shared module. */
function groupOf(path: string): string | null {
  const parts = relative(WEB, path).split('/');
  return parts.length > 1 ? (parts[0] as string) : null;
}

const isWeb = (path: string) => !relative(WEB, path).startsWith('..');

describe('the web keeps its rooms apart', () => {
  const files = sourceFiles(SRC);

  it('a page group imports no other page group', () => {
    const crossings = files
      .filter((file) => isWeb(file) && groupOf(file) !== null)
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => isWeb(target) && groupOf(target) !== null && groupOf(target) !== groupOf(file))
          .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
      );
    expect(crossings).toEqual([]);
  });

  it('the shared modules import no page group; only the root does', () => {
    const root = join(WEB, 'index.tsx');
    const crossings = files
      .filter((file) => isWeb(file) && groupOf(file) === null && file !== root)
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => isWeb(target) && groupOf(target) !== null)
          .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
      );
    expect(crossings).toEqual([]);
    // The root does put the groups together (so the rule above is not vacuous).
    expect(importsOf(root).filter((target) => groupOf(target) !== null).length).toBeGreaterThan(10);
  });

  it('nothing outside src/web/ imports the web', () => {
    const reaching = files
      .filter((file) => !isWeb(file))
      .flatMap((file) =>
        importsOf(file)
          .filter(isWeb)
          .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
      )
      // The app factory mounts the web, as it mounts every surface, and the hosts size an upload route's body.
      .filter((line) => !/^(app|node|worker|worker-[a-z-]+)\.ts /.test(line));
    expect(reaching).toEqual([]);
  });
});
