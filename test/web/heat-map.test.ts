// The risk heat map: the summary's grouped counts, the exact likelihood/impact filters, and the pages that show it.
import { describe, expect, it } from 'vitest';
import { ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { signedUpRuntime, textOf } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup() {
  const signedUp = await signedUpRuntime(runtimes);
  const { runtime, token, organizationId } = signedUp;
  /** A risk in the cells [likelihood, impact] before and (if given) after measures. */
  const addRisk = async (name: string, inherent: Pair, residual?: Pair, status = 'OPEN') =>
    (
      await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name,
        status,
        inherent_likelihood: inherent[0],
        inherent_impact: inherent[1],
        ...(residual ? { residual_likelihood: residual[0], residual_impact: residual[1] } : {}),
      })
    ).risk.id;
  return { ...signedUp, addRisk, base: `/orgs/${organizationId}` };
}

type Pair = [number, number];
type Cell = { likelihood: number; impact: number; count: number };

/** The accessible names of the heat map cells of one stage, as a screen reader announces them. */
/** Each cell's text as a screen reader says it (visible and visually hidden words, spaces collapsed). */
function cellNames(html: string, stage: 'inherent' | 'residual'): string[] {
  return [...html.matchAll(/<td class="cell[^"]*">(.*?)<\/td>/g)]
    .map((match) =>
      (match[1] ?? '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .replace(/ ,/g, ',')
        .trim(),
    )
    .filter((name) => name.includes(`, ${stage} likelihood`));
}

function rowNames(html: string): string[] {
  return [...html.matchAll(/<th scope="row"><a href="[^"]+"[^>]*>([^<]+)<\/a><\/th>/g)].map(
    (match) => match[1] ?? '',
  );
}

describe('risk heat map', () => {
  it('counts the risks not closed per likelihood x impact cell, inherent and residual, in getComplianceSummary', async () => {
    const { runtime, token, organizationId, addRisk } = await setup();
    await addRisk('Ransomware', [4, 5], [2, 5]);
    await addRisk('Phishing', [4, 5], [2, 2]);
    await addRisk('Flood', [1, 3]);
    await addRisk('Old server', [4, 5], undefined, 'CLOSED');
    const summary = await ok<{ risks: { heat_map: { inherent: Cell[]; residual: Cell[] } } }>(
      runtime,
      token,
      'getComplianceSummary',
      { organization_id: organizationId },
    );
    expect(summary.risks.heat_map).toEqual({
      inherent: [
        { likelihood: 1, impact: 3, count: 1, level: 'low' },
        { likelihood: 4, impact: 5, count: 2, level: 'high' },
      ],
      residual: [
        { likelihood: 1, impact: 3, count: 1, level: 'low' },
        { likelihood: 2, impact: 2, count: 1, level: 'low' },
        { likelihood: 2, impact: 5, count: 1, level: 'medium' },
      ],
    });
  });

  it('shows both grids on the home page and the risks register, each count linking to its cell’s risks', async () => {
    const { client, base, addRisk } = await setup();
    await addRisk('Ransomware', [4, 5], [2, 5]);
    await addRisk('Phishing', [4, 5], [2, 2]);
    await addRisk('Old server', [4, 5], undefined, 'CLOSED');
    await addRisk('Insider', [4, 4]);

    for (const path of [base, `${base}/risks`]) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      const text = textOf(page.html);
      expect(text).toContain('Inherent risk (before measures): 3 risks not closed');
      expect(text).toContain('Residual risk (after measures): 3 risks not closed');
      const inherent = cellNames(page.html, 'inherent');
      expect(inherent).toHaveLength(25);
      expect(inherent).toContain('2 risks, inherent likelihood 4, impact 5: high · score 20');
      expect(inherent).toContain('1 risk, inherent likelihood 4, impact 4: high · score 16');
      expect(inherent).toContain('0 risks, inherent likelihood 1, impact 1: low · score 1');
      expect(cellNames(page.html, 'residual')).toContain(
        '1 risk, residual likelihood 2, impact 5: medium · score 10',
      );
    }

    const home = await client.get(base);
    const link =
      /<a href="([^"]+inherent_likelihood=4&amp;inherent_impact=5[^"]*)"><span class="count">2</.exec(
        home.html,
      )?.[1];
    expect(link).toBe(
      `${base}/risks?inherent_likelihood=4&amp;inherent_impact=5&amp;status=OPEN%2CIN_TREATMENT%2CMITIGATED%2CACCEPTED`,
    );
    const cell = await client.get((link ?? '').replace(/&amp;/g, '&'));
    expect(cell.status).toBe(200);
    expect(rowNames(cell.html).sort()).toEqual(['Phishing', 'Ransomware']);
    // The status filter shows the cell's four statuses chosen, CLOSED not.
    const checked = [...cell.html.matchAll(/name="status" value="([A-Z_]+)" checked=""/g)].map((m) => m[1]);
    expect(checked).toEqual(['OPEN', 'IN_TREATMENT', 'MITIGATED', 'ACCEPTED']);
    expect(cell.html).toContain('name="status" value="CLOSED"/>');
  });

  it('moves a risk to another cell when its likelihood changes', async () => {
    const { runtime, token, client, base, addRisk } = await setup();
    const id = await addRisk('Phishing', [3, 3]);
    const before = cellNames((await client.get(base)).html, 'residual');
    expect(before).toContain('1 risk, residual likelihood 3, impact 3: medium · score 9');
    await ok(runtime, token, 'updateRisk', { id, residual_likelihood: 1 });
    const after = cellNames((await client.get(base)).html, 'residual');
    expect(after).toContain('0 risks, residual likelihood 3, impact 3: medium · score 9');
    expect(after).toContain('1 risk, residual likelihood 1, impact 3: low · score 3');
  });
});
