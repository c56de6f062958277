// Docs that cannot drift: the tool counts, toolsets and token figures in README.md and docs/mcp.md are the ones the
// tool map gives now (scripts/tool-figures.ts); `npm run docs:figures` rewrites them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIGURE_FILES, generatedBlock, toolFigures } from '../../scripts/tool-figures.ts';
import { TOOLS } from '../../src/tools/index.ts';

describe('figures generated from the tool map', () => {
  const figures = toolFigures();

  it.each(Object.keys(FIGURE_FILES) as (keyof typeof FIGURE_FILES)[])(
    '%s holds the figures of the tool map as it is (else run npm run docs:figures)',
    (name) => {
      const text = readFileSync(FIGURE_FILES[name], 'utf8');
      expect(generatedBlock(text, name), name).toBe(figures[name]);
    },
  );

  it('says the number of tools the map has, and no other count of all tools', () => {
    expect(figures.readme).toContain(`**${TOOLS.size} tools**`);
    expect(figures.docs).toMatch(new RegExp(`^${TOOLS.size} tools in \\d+ toolsets`));
    const readme = readFileSync(FIGURE_FILES.readme, 'utf8');
    // A count of 50 tools or more is a count of them all (80, 71, 92 were each true once): only the map's.
    const counts = [...readme.matchAll(/\b(\d+)\*{0,2} tools\b/g)].map((match) => Number(match[1]));
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.filter((count) => count >= 50 && count !== TOOLS.size)).toEqual([]);
  });
});
