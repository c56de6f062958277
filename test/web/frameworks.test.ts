// The framework pages: coverage per section, the requirement tree with applicability edited in place, the statement
// of applicability as a printable document and as CSV/JSON, and both sides of a measure's links.
import { describe, expect, it } from 'vitest';
import { ACTOR_PASSWORD, addMember, BASE, createActor, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

/** A framework with two sections, four requirements (one excluded), measures in three states. */
async function setup() {
  const signedUp = await signedUpRuntime(runtimes);
  const { runtime, token, organizationId } = signedUp;
  const add = async (tool: string, key: string, args: Row) =>
    (await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row;
  const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001', version: '2022' });
  const requirement = (reference: string, title: string, extra: Row = {}) =>
    add('addRequirement', 'requirement', { framework_id: framework.id, reference, title, ...extra });
  const a5 = await requirement('A.5', 'Organizational controls', { is_section: true });
  const a8 = await requirement('A.8', 'Technological controls', { is_section: true });
  const policies = await requirement('A.5.1', 'Policies', { parent_id: a5.id });
  const access = await requirement('A.5.15', 'Access control', { parent_id: a5.id });
  const endpoints = await requirement('A.8.1', '=Endpoint devices', { parent_id: a8.id });
  const outsourced = await requirement('A.8.30', 'Outsourced development', {
    parent_id: a8.id,
    applicability: 'EXCLUDED',
    justification: 'We outsource no development.',
  });
  const mfa = await add('addMeasure', 'measure', { name: 'Enforce MFA', state: 'IMPLEMENTED' });
  const edr = await add('addMeasure', 'measure', { name: 'Endpoint protection', state: 'IN_PROGRESS' });
  for (const [item, measure] of [
    [access, mfa],
    [endpoints, edr],
  ] as const) {
    await ok(runtime, token, 'linkRequirementMeasure', { requirement_id: item.id, measure_id: measure.id });
  }
  const base = `/orgs/${organizationId}`;
  return { ...signedUp, base, framework, a5, a8, policies, access, endpoints, outsourced, mfa };
}

describe('framework pages', () => {
  it('shows coverage per section and the requirement tree with statuses and measures', async () => {
    const { client, base, framework, access, mfa } = await setup();
    const page = await client.get(`${base}/frameworks/${framework.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('A.5 Organizational controls 2 1 0 0 1 0 50%');
    expect(text).toContain('A.8 Technological controls 1 0 1 0 0 1 0%');
    expect(text).toContain('All requirements 3 1 1 0 1 1 33%');
    expect(text).toMatch(
      /A\.5 Organizational controls section.*A\.5\.1 Policies Not covered Not ready no applicable measure covers it.*A\.5\.15 Access control Implemented Not ready 1 of 1 measures not ready, e\.g\. "Enforce MFA" Enforce MFA \(not ready\)/,
    );
    // Declared and evidenced side by side: MFA is IMPLEMENTED without the evidence it requires.
    expect(text).toContain(
      'Evidenced: 0 of 3 applicable requirements ready (0%); 1 implemented but not ready',
    );
    expect(page.html).toContain(`href="${base}/measures/${mfa.id}"`);
    expect(page.html).toContain(`action="${base}/requirements/${access.id}/applicability"`);
    expect(page.html).toContain(`href="${base}/frameworks/${framework.id}/soa"`);
  });

  it('edits applicability and justification in place, and says why an exclusion without one is refused', async () => {
    const { client, base, framework, policies, runtime, token } = await setup();
    const page = await client.get(`${base}/frameworks/${framework.id}`);
    const updatedAt = new RegExp(
      `action="${base}/requirements/${policies.id}/applicability"[^>]*>.*?name="expected_updated_at" value="([^"]+)"`,
    ).exec(page.html)?.[1];
    expect(updatedAt).toBe(policies.updated_at);
    const back = `${base}/frameworks/${framework.id}`;
    const refused = await client.post(`${base}/requirements/${policies.id}/applicability`, {
      _csrf: csrfOf(page.html),
      applicability: 'EXCLUDED',
      justification: '',
      expected_updated_at: String(updatedAt),
      back,
    });
    expect(refused.status).toBe(303);
    expect(refused.location).toBe(`${back}#${policies.id}`);
    expect(textOf((await client.follow(refused)).html)).toContain(
      'Not saved: An EXCLUDED requirement needs a justification',
    );
    const saved = await client.post(`${base}/requirements/${policies.id}/applicability`, {
      _csrf: csrfOf(page.html),
      applicability: 'EXCLUDED',
      justification: 'Policies live in the group handbook.',
      expected_updated_at: String(updatedAt),
      back,
    });
    expect(textOf((await client.follow(saved)).html)).toContain('Requirement A.5.1: applicability saved.');
    const after = (await ok(runtime, token, 'getRequirement', { id: policies.id })).requirement as Row;
    expect(after).toMatchObject({
      applicability: 'EXCLUDED',
      justification: 'Policies live in the group handbook.',
      implementation_status: 'NOT_APPLICABLE',
    });
  });

  it('shows a viewer the tree without forms, and refuses a viewer’s post', async () => {
    const { runtime, base, framework, policies, organizationId } = await setup();
    const viewer = await createActor(runtime, 'viewer');
    await addMember(runtime, organizationId, viewer, 'VIEWER');
    const client = new WebClient(runtime);
    await client.signIn(viewer.email, ACTOR_PASSWORD);
    const page = await client.get(`${base}/frameworks/${framework.id}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('/applicability"');
    expect(textOf(page.html)).toContain(
      'A.8.30 Outsourced development Not applicable Not applicable — Excluded We outsource no development.',
    );
    const refused = await client.post(`${base}/requirements/${policies.id}/applicability`, {
      _csrf: csrfOf(page.html),
      applicability: 'EXCLUDED',
      justification: 'x',
    });
    expect(refused.status).toBe(403);
  });

  it('prints the statement of applicability: one table per section, in document order', async () => {
    const { client, base, framework } = await setup();
    const page = await client.get(`${base}/frameworks/${framework.id}/soa`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Statement of applicability: ISO/IEC 27001 (2022)');
    expect(text).toContain(
      '4 requirements: 3 applicable, 1 excluded. Of the applicable ones 1 implemented (33%), 1 partially implemented, 0 planned, 1 not covered by any measure.',
    );
    expect(page.html.match(/<section class="soa-section">/g)).toHaveLength(2);
    expect(text).toMatch(
      /A\.5 Organizational controls Ref Requirement .*?A\.5\.1 Policies Yes Not covered A\.5\.15 Access control Yes Implemented Enforce MFA/,
    );
    expect(text).toContain('A.8.30 Outsourced development No We outsource no development. Not applicable');
  });

  it('exports the statement as CSV (formula guard, BOM) and JSON, every row with its measures', async () => {
    const { client, runtime, base, framework, access, mfa } = await setup();
    const csv = await client.get(`${base}/frameworks/${framework.id}/soa.csv`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="acme-health-soa-iso-iec-27001-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    // The body's first bytes are the UTF-8 byte-order mark (text() drops it).
    const raw = await runtime.app.request(`${BASE}${base}/frameworks/${framework.id}/soa.csv`, {
      headers: { cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.html.split('\r\n');
    expect(lines[0]).toBe(
      'Reference,Title,Section,Applicable,Justification,Implementation status,Measures,Requirement id,Measure ids',
    );
    expect(lines).toHaveLength(6 + 2);
    expect(lines).toContain(`A.5.15,Access control,no,yes,,Implemented,Enforce MFA,${access.id},${mfa.id}`);
    expect(lines.find((line) => line.startsWith('A.8.1,'))).toContain(",'=Endpoint devices,");
    const json = JSON.parse((await client.get(`${base}/frameworks/${framework.id}/soa.json`)).html);
    expect(json.framework).toMatchObject({ id: framework.id, name: 'ISO/IEC 27001' });
    expect(json.coverage.applicable).toBe(3);
    expect(json.requirements.map((row: Row) => row.reference)).toEqual([
      'A.5',
      'A.5.1',
      'A.5.15',
      'A.8',
      'A.8.1',
      'A.8.30',
    ]);
  });

  it('shows on a measure’s page the requirements it covers and the risks it mitigates', async () => {
    const { client, runtime, token, organizationId, base, access, mfa } = await setup();
    const risk = (
      await ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name: 'Account takeover',
        inherent_likelihood: 4,
        inherent_impact: 4,
      })
    ).risk as Row;
    await ok(runtime, token, 'linkRiskMeasure', { risk_id: risk.id, measure_id: mfa.id });
    const page = await client.get(`${base}/measures/${mfa.id}`);
    const text = textOf(page.html);
    expect(text).toContain('Risks mitigated Account takeover');
    expect(text).toContain('Requirements covered A.5.15 Access control');
    expect(page.html).toContain(`href="${base}/requirements/${access.id}"`);
    expect(page.html).toContain(`href="${base}/risks/${risk.id}"`);
  });

  it('answers 404 for another organization’s framework statement', async () => {
    const { base, framework } = await setup();
    const other = await signedUpRuntime(runtimes);
    const theirs = await other.client.get(`/orgs/${other.organizationId}/frameworks/${framework.id}/soa`);
    expect(theirs.status).toBe(404);
    expect(base).toContain('/orgs/');
  });
});

describe('adding a framework from a built-in catalogue', () => {
  it('lists the catalogues with their counts, adopts one through importFrameworkCatalog, then offers to update it', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const base = `/orgs/${organizationId}`;
    const frameworks = await client.get(`${base}/frameworks`);
    expect(frameworks.html).toContain(`href="${base}/frameworks/catalogues"`);
    const page = await client.get(`${base}/frameworks/catalogues`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    // ISO/IEC 27001:2022: 93 Annex A controls and 30 clause requirements, under 15 sections.
    expect(text).toMatch(/ISO\/IEC 27001:2022 .* 123 15 AICPA Trust Services Criteria \(SOC 2\) \(170\)/);
    expect(page.html).toContain(`action="${base}/frameworks/catalogues/iso-27001-2022"`);
    expect(page.html).toContain('aria-label="Adopt ISO/IEC 27001:2022"');

    const adopted = await client.post(`${base}/frameworks/catalogues/iso-27001-2022`, {
      _csrf: csrfOf(page.html),
    });
    expect(adopted.status).toBe(303);
    const { catalogs } = await ok(runtime, token, 'listCatalogs', { organization_id: organizationId });
    const iso = (catalogs as Row[]).find((catalog) => catalog.key === 'iso-27001-2022');
    const frameworkId = (iso?.adopted as Row | undefined)?.framework_id;
    expect(frameworkId).toMatch(/^fwk_/);
    expect(adopted.location).toBe(`${base}/frameworks/${frameworkId}`);
    const shown = await client.follow(adopted);
    expect(textOf(shown.html)).toContain(
      'was adopted: 138 requirements and sections added, 0 updated, 0 unchanged.',
    );
    const { total_count } = await ok(runtime, token, 'listRequirements', {
      organization_id: organizationId,
      filter: { framework_id: frameworkId },
      size: 1,
    });
    expect(total_count).toBe(138);
    const again = await client.get(`${base}/frameworks/catalogues`);
    expect(again.html).toContain('aria-label="Update ISO/IEC 27001:2022"');
    expect(again.html).toContain(`href="${base}/frameworks/${frameworkId}"`);
  });

  it('shows a viewer the catalogues without buttons, and refuses a viewer’s adoption', async () => {
    const { runtime, organizationId } = await signedUpRuntime(runtimes);
    const viewer = await createActor(runtime, 'viewer');
    await addMember(runtime, organizationId, viewer, 'VIEWER');
    const client = new WebClient(runtime);
    await client.signIn(viewer.email, ACTOR_PASSWORD);
    const page = await client.get(`/orgs/${organizationId}/frameworks/catalogues`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('/frameworks/catalogues/iso-27001-2022"');
    const refused = await client.post(`/orgs/${organizationId}/frameworks/catalogues/iso-27001-2022`, {
      _csrf: csrfOf(page.html),
    });
    expect(refused.status).toBe(403);
  });
});
