// The official MCP conformance scenarios (server-initialize, ping, tools-list, dns-rebinding-protection).
import { describe, expect, it } from 'vitest';
import { runConformance, SCENARIOS } from '../../scripts/conformance.ts';

describe('MCP conformance suite 0.1.13', () => {
  it('passes every server scenario we claim, through a proxy that adds the token', async () => {
    const lines: string[] = [];
    const failed = await runConformance(SCENARIOS, (line) => lines.push(line));
    expect(lines.filter((line) => line.startsWith('PASS'))).toEqual(
      SCENARIOS.map((scenario) => `PASS ${scenario}`),
    );
    expect(failed).toBe(0);
  }, 120_000);
});
