// Register pages and the compliance summary: filters and pages as the tools have them, through the tool map.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addMembership, createUser } from '../../src/accounts.ts';
import { toolCalls } from '../../src/db/schema.ts';
import { REGISTER_PAGES } from '../../src/web/register-pages.ts';
import { seedRecords } from '../fixtures.ts';
import { ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { signedUpRuntime, textOf } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup() {
  return signedUpRuntime(runtimes);
}

function rowNames(html: string): string[] {
  return [...html.matchAll(/<th scope="row"><a href="[^"]+"[^>]*>([^<]+)<\/a><\/th>/g)].map(
    (match) => match[1] ?? '',
  );
}

describe('register pages', () => {
  it('has a page for each of the twenty-six kinds, each listing what the list tool returns', async () => {
    const { runtime, client, organizationId, token } = await setup();
    await seedRecords(runtime, token, organizationId);
    expect(REGISTER_PAGES.map((page) => page.slug)).toEqual([
      'vendors',
      'vendor-assessments',
      'risks',
      'risk-acceptances',
      'measures',
      'control-tests',
      'obligations',
      'people',
      'frameworks',
      'assets',
      'data-classifications',
      'nonconformities',
      'continual-improvements',
      'audits',
      'requirements',
      'documents',
      'evidence',
      'tasks',
      'incidents',
      'incident-actions',
      'incident-notifications',
      'processing-activities',
      'dpias',
      'data-subject-requests',
      'access-reviews',
      'access-review-entries',
      'management-reviews',
    ]);
    for (const page of REGISTER_PAGES) {
      const response = await client.get(`/orgs/${organizationId}/${page.slug}`);
      expect(response.status, page.slug).toBe(200);
      expect(textOf(response.html), page.slug).toContain(`1 of 1 ${page.spec.label}`);
      expect(rowNames(response.html), page.slug).toHaveLength(1);
    }
  });

  it('filters risks by minimum residual score, status and text, as listRisks does', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const add = (name: string, likelihood: number, impact: number, status = 'OPEN') =>
      ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name,
        inherent_likelihood: likelihood,
        inherent_impact: impact,
        status,
      });
    await add('Ransomware on file servers', 5, 4); // 20
    await add('Phishing of finance staff', 4, 4, 'IN_TREATMENT'); // 16
    await add('Office flood', 1, 3); // 3
    const base = `/orgs/${organizationId}/risks`;

    expect(rowNames((await client.get(base)).html)).toEqual([
      'Ransomware on file servers',
      'Phishing of finance staff',
      'Office flood',
    ]); // default order: residual score, highest first
    expect(rowNames((await client.get(`${base}?min_residual_score=15`)).html)).toEqual([
      'Ransomware on file servers',
      'Phishing of finance staff',
    ]);
    expect(rowNames((await client.get(`${base}?min_residual_score=15&status=IN_TREATMENT`)).html)).toEqual([
      'Phishing of finance staff',
    ]);
    expect(rowNames((await client.get(`${base}?query=flood`)).html)).toEqual(['Office flood']);
    expect(rowNames((await client.get(`${base}?sort=name&direction=ASC`)).html)).toEqual([
      'Office flood',
      'Phishing of finance staff',
      'Ransomware on file servers',
    ]);
    const form = (await client.get(`${base}?min_residual_score=15`)).html;
    expect(form).toContain('<label for="filter-min_residual_score">Min residual score</label>');
    expect(form).toMatch(
      /id="filter-min_residual_score" name="min_residual_score" type="number" value="15" min="1" max="100"/,
    );
  });

  it('shows the tool’s own message for a filter value it refuses', async () => {
    const { client, organizationId } = await setup();
    const page = await client.get(`/orgs/${organizationId}/risks?min_residual_score=101`);
    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain('Invalid arguments for listRisks: filter.min_residual_score');
  });

  it('filters obligations by overdue', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const add = (requirement: string, due_date: string, status = 'NON_COMPLIANT') =>
      ok(runtime, token, 'addObligation', { organization_id: organizationId, requirement, due_date, status });
    await add('Keep a record of processing', '2020-01-31');
    await add('Annual DPIA review', '2099-12-31');
    await add('Appoint a DPO', '2020-01-31', 'COMPLIANT');
    const base = `/orgs/${organizationId}/obligations`;
    expect(rowNames((await client.get(`${base}?overdue=true`)).html)).toEqual([
      'Keep a record of processing',
    ]);
    expect(rowNames((await client.get(`${base}?overdue=false`)).html).sort()).toEqual([
      'Annual DPIA review',
      'Appoint a DPO',
    ]);
  });

  it('pages with next_cursor, 25 at a time', async () => {
    const { runtime, client, organizationId, token } = await setup();
    for (let index = 0; index < 30; index++) {
      await ok(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: `Vendor ${String(index).padStart(2, '0')}`,
      });
    }
    const base = `/orgs/${organizationId}/vendors?sort=name&direction=ASC`;
    const first = await client.get(base);
    expect(rowNames(first.html)).toHaveLength(25);
    expect(rowNames(first.html)[0]).toBe('Vendor 00');
    expect(textOf(first.html)).toContain('25 of 30 vendors');
    const next =
      /<a class="button quiet" href="([^"]+)" rel="next">/.exec(first.html)?.[1]?.replace(/&amp;/g, '&') ??
      '';
    expect(next).toContain('cursor=');
    const second = await client.get(next);
    expect(rowNames(second.html)).toEqual(['Vendor 25', 'Vendor 26', 'Vendor 27', 'Vendor 28', 'Vendor 29']);
    expect(second.html).not.toContain('rel="next"');
    expect(second.html).toContain('First page');
    expect(textOf(second.html)).toContain('Page 2');
  });

  it('goes back a page at a time, shows 10 a page when asked, and sorts by a column header both ways', async () => {
    const { runtime, client, organizationId, token } = await setup();
    for (let index = 0; index < 60; index++) {
      await ok(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: `Vendor ${String(index).padStart(2, '0')}`,
      });
    }
    const base = `/orgs/${organizationId}/vendors`;
    const link = (html: string, rel: 'next' | 'prev') =>
      (new RegExp(`href="([^"]+)" rel="${rel}"`).exec(html)?.[1] ?? '').replace(/&amp;/g, '&');
    // The Name header sorts A to Z, and again Z to A.
    const unsorted = await client.get(base);
    const byName =
      /<a href="([^"]+)" class="sort">Name/.exec(unsorted.html)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(byName).toBe(`${base}?sort=name&direction=ASC`);
    const ascending = await client.get(byName);
    expect(rowNames(ascending.html).slice(0, 2)).toEqual(['Vendor 00', 'Vendor 01']);
    expect(ascending.html).toContain('aria-sort="ascending"');
    const reversed = /<a href="([^"]+)" class="sort">Name/.exec(ascending.html)?.[1]?.replace(/&amp;/g, '&');
    expect(rowNames((await client.get(reversed ?? '')).html)[0]).toBe('Vendor 59');

    const first = await client.get(`${base}?sort=name&direction=ASC&size=50`);
    expect(rowNames(first.html)).toHaveLength(50);
    expect(first.html).toContain('<option value="50" selected="">50</option>');
    const second = await client.get(link(first.html, 'next'));
    expect(rowNames(second.html)[0]).toBe('Vendor 50');
    expect(textOf(second.html)).toContain('Page 2');
    // From page 2, Previous is the first page (the First page link itself).
    expect(second.html).not.toContain('rel="prev"');

    const small = `${base}?sort=name&direction=ASC`;
    const page1 = await client.get(small);
    const page2 = await client.get(link(page1.html, 'next'));
    const page3 = await client.get(link(page2.html, 'next'));
    expect(textOf(page3.html)).toContain('Page 3');
    expect(rowNames(page3.html)[0]).toBe('Vendor 50');
    const back = await client.get(link(page3.html, 'prev'));
    expect(textOf(back.html)).toContain('Page 2');
    expect(rowNames(back.html)).toEqual(rowNames(page2.html));
  });

  it('guides a new organization through its first steps, and shows coverage per framework on the home page', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const home = `/orgs/${organizationId}`;
    const steps = async () => {
      const text = textOf((await client.get(home)).html);
      return text.includes('Getting started') ? /(\d) of 4 steps left/.exec(text)?.[1] : 'none';
    };
    // Ada already holds a token (the test's own): three steps left.
    expect(await steps()).toBe('3');
    const first = await client.get(home);
    expect(first.html).toContain(`href="${home}/risks/import"`);
    expect(first.html).toContain(`href="${home}/frameworks/catalogues"`);
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Phishing',
      inherent_likelihood: 3,
      inherent_impact: 3,
    });
    expect(await steps()).toBe('2');
    const framework = await ok<{ framework: { id: string } }>(runtime, token, 'addFramework', {
      organization_id: organizationId,
      name: 'ISO 27001',
      version: '2022',
    });
    const measure = await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
      organization_id: organizationId,
      name: 'MFA',
      state: 'IMPLEMENTED',
    });
    for (const reference of ['A.5.15', 'A.5.16', 'A.5.17']) {
      const requirement = await ok<{ requirement: { id: string } }>(runtime, token, 'addRequirement', {
        organization_id: organizationId,
        framework_id: framework.framework.id,
        reference,
        title: `Control ${reference}`,
      });
      if (reference === 'A.5.15') {
        await ok(runtime, token, 'linkRequirementMeasure', {
          requirement_id: requirement.requirement.id,
          measure_id: measure.measure.id,
        });
      }
    }
    expect(await steps()).toBe('1');
    const colleague = await createUser(runtime.database.db, new Date(), {
      emailVerified: true,
      email: 'grace@example.com',
      password: 'a long enough password',
    });
    await addMembership(runtime.database.db, new Date(), organizationId, colleague.id, 'EDITOR');
    expect(await steps()).toBe('none');

    const text = textOf((await client.get(home)).html);
    // Framework, requirements, applicable, implemented, not covered, share.
    expect(text).toContain('ISO 27001 2022 3 3 1 2 33%');
  });

  it('searches every register at once from the side menu, each register linking to its own matches', async () => {
    const { runtime, client, organizationId, token } = await setup();
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Ransomware on the payroll server',
      inherent_likelihood: 3,
      inherent_impact: 4,
    });
    await ok(runtime, token, 'addVendor', { organization_id: organizationId, name: 'Payroll Co' });
    await ok(runtime, token, 'addVendor', { organization_id: organizationId, name: 'Cleaning Ltd' });
    const home = await client.get(`/orgs/${organizationId}`);
    expect(home.html).toContain(`<search><form method="get" action="/orgs/${organizationId}/search"`);
    const found = await client.get(`/orgs/${organizationId}/search?q=payroll`);
    expect(found.status).toBe(200);
    const text = textOf(found.html);
    expect(text).toContain('Vendors (1 match)');
    expect(text).toContain('Risks (1 match)');
    expect(text).toContain('Payroll Co');
    expect(text).toContain('Ransomware on the payroll server');
    expect(text).not.toContain('Cleaning Ltd');
    // Each register's heading links to that register filtered the same way.
    expect(found.html).toContain(`<a href="/orgs/${organizationId}/vendors?query=payroll">Vendors</a>`);
    expect(text).not.toContain('Measures (');
    const none = await client.get(`/orgs/${organizationId}/search?q=zebra`);
    expect(textOf(none.html)).toContain('Nothing in any register matches “zebra”.');
    // Another organization's search is not found, as its pages are not.
    expect((await client.get('/orgs/org_00000000000000000000000000/search?q=payroll')).status).toBe(404);
  });

  it('hides closed risks until asked, and takes several statuses at once', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const add = (name: string, status: string) =>
      ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name,
        inherent_likelihood: 2,
        inherent_impact: 2,
        status,
      });
    await add('Open one', 'OPEN');
    const accepted = (await add('Accepted one', 'OPEN')).risk as { id: string };
    const approver = await ok(runtime, token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'Approver',
      email: 'approver@example.com',
    });
    await ok(runtime, token, 'addRiskAcceptance', {
      organization_id: organizationId,
      risk_id: accepted.id,
      approver_id: (approver.person as { id: string }).id,
      rationale: 'Low enough.',
      expires_on: '2099-12-31',
    });
    await add('Closed one', 'CLOSED');
    const base = `/orgs/${organizationId}/risks`;
    const list = await client.get(base);
    expect(rowNames(list.html).sort()).toEqual(['Accepted one', 'Open one']);
    const show = /<a href="([^"]+)">Show closed risks<\/a>/.exec(list.html)?.[1] ?? '';
    expect(show).toBe(`${base}?sort=residual_score&amp;direction=DESC&amp;hidden=show`);
    const all = await client.get(show.replace(/&amp;/g, '&'));
    expect(rowNames(all.html).sort()).toEqual(['Accepted one', 'Closed one', 'Open one']);
    expect(all.html).toContain('direction=DESC">Hide closed risks</a>');
    // A status filter names what it wants, closed included; checkboxes send the field once per value.
    const chosen = await client.get(`${base}?status=CLOSED&status=ACCEPTED`);
    expect(rowNames(chosen.html).sort()).toEqual(['Accepted one', 'Closed one']);
    expect(textOf(chosen.html)).not.toContain('Show closed risks');
  });

  it('shows a record with its references resolved to names', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const person = await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'Grace Hopper',
      email: 'grace@example.com',
    });
    const risk = await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Laptop theft',
      inherent_likelihood: 3,
      inherent_impact: 4,
      owner_id: person.person.id,
    });
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Unowned',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    const listPage = await client.get(`/orgs/${organizationId}/risks`);
    expect(textOf(listPage.html)).toMatch(/Laptop theft General Open Mitigate 12 12 medium Grace Hopper/);
    // The owner filter offers people by name, and filters by their id.
    expect(listPage.html).toContain(`<option value="${person.person.id}">Grace Hopper</option>`);
    expect(
      rowNames((await client.get(`/orgs/${organizationId}/risks?owner_id=${person.person.id}`)).html),
    ).toEqual(['Laptop theft']);
    const page = await client.get(`/orgs/${organizationId}/risks/${risk.risk.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Laptop theft');
    expect(text).toContain('Owner Grace Hopper');
    expect(text).toContain('Inherent score 12');
    expect(page.html).toContain(`href="/orgs/${organizationId}/people/${person.person.id}"`);
    expect((await client.get(`/orgs/${organizationId}/vendors/${risk.risk.id}`)).status).toBe(404);
  });

  it('shows the records pointing at a record: a person’s risks and vendors, an audit’s findings, a vendor’s assets', async () => {
    const { runtime, client, organizationId, token } = await setup();
    const add = async (tool: string, key: string, args: Record<string, unknown>) =>
      (
        (await ok(runtime, token, tool, { organization_id: organizationId, ...args })) as Record<
          string,
          { id: string }
        >
      )[key] as { id: string };
    const grace = await add('addPerson', 'person', { full_name: 'Grace Hopper', email: 'grace@example.com' });
    for (let n = 1; n <= 12; n++)
      await add('addRisk', 'risk', {
        name: `Risk ${n}`,
        inherent_likelihood: 2,
        inherent_impact: 2,
        owner_id: grace.id,
      });
    const vendor = await add('addVendor', 'vendor', { name: 'AWS', security_owner_id: grace.id });
    await add('addAsset', 'asset', { name: 'Database cluster', vendor_ids: [vendor.id] });
    const framework = await add('addFramework', 'framework', { name: 'ISO 27001' });
    const audit = await add('addAudit', 'audit', { framework_id: framework.id, name: 'Stage 2' });
    await add('addNonconformity', 'nonconformity', { reference_id: 'NC-7', audit_id: audit.id });

    const person = textOf((await client.get(`/orgs/${organizationId}/people/${grace.id}`)).html);
    expect(person).toContain('Linked records');
    expect(person).toMatch(/Risks · owner (Risk \d+ , ){9}Risk \d+ · all 12/);
    expect(person).toContain('Vendors · security owner AWS');
    expect(person).not.toContain('Vendors · business owner');
    const personPage = (await client.get(`/orgs/${organizationId}/people/${grace.id}`)).html;
    expect(personPage).toContain(`href="/orgs/${organizationId}/risks?owner_id=${grace.id}"`);
    expect(textOf((await client.get(`/orgs/${organizationId}/audits/${audit.id}`)).html)).toContain(
      'Nonconformities · audit NC-7',
    );
    expect(textOf((await client.get(`/orgs/${organizationId}/vendors/${vendor.id}`)).html)).toContain(
      'Assets · vendors Database cluster',
    );
    expect(textOf((await client.get(`/orgs/${organizationId}/frameworks/${framework.id}`)).html)).toContain(
      'Audits · framework Stage 2',
    );
  });

  it('opens the organization on its compliance summary, from getComplianceSummary', async () => {
    const { runtime, client, organizationId, token } = await setup();
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'High',
      inherent_likelihood: 5,
      inherent_impact: 4,
    });
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Low',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    await ok(runtime, token, 'addMeasure', {
      organization_id: organizationId,
      name: 'MFA',
      state: 'IMPLEMENTED',
    });
    await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: 'Backups' });
    await ok(runtime, token, 'addObligation', {
      organization_id: organizationId,
      requirement: 'Old',
      due_date: '2020-01-01',
    });
    // A closed risk counts neither among the high ones nor among those they are counted of.
    await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Retired',
      inherent_likelihood: 5,
      inherent_impact: 5,
      status: 'CLOSED',
    });
    const text = textOf((await client.get(`/orgs/${organizationId}`)).html);
    expect(text).toContain('Risks above the appetite (medium) 1 of 2 risks not closed');
    expect(text).toContain('Measures implemented 50% 1 of 2 applicable measures');
    expect(text).not.toContain('not applicable)');
    expect(text).toContain('Overdue obligations 1 of 1 obligations');
  });

  it('counts the measures of the implemented share the way the share does: NOT_APPLICABLE left out of both', async () => {
    const { runtime, client, organizationId, token } = await setup();
    for (const state of ['IMPLEMENTED', 'NOT_STARTED', 'IN_PROGRESS', 'NOT_APPLICABLE']) {
      await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: `M ${state}`, state });
    }
    const text = textOf((await client.get(`/orgs/${organizationId}`)).html);
    // 1 of 3 is 33%; the old text said "1 of 4 measures" next to 33%.
    expect(text).toContain('Measures implemented 33% 1 of 3 applicable measures (1 not applicable)');
  });

  it('reads through the tool map: each page view is logged as a web call of the signed-in user', async () => {
    const { runtime, client, organizationId } = await setup();
    await client.get(`/orgs/${organizationId}/risks?min_residual_score=15`);
    await client.get(`/orgs/${organizationId}`);
    await runtime.usage.flush();
    const calls = await runtime.database.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.surface, 'web'), eq(toolCalls.organization_id, organizationId)));
    // The risks register shows the heat map, read from the summary tool.
    expect(calls.map((call) => call.tool).sort()).toEqual([
      'getComplianceSummary',
      'getComplianceSummary',
      'listRisks',
    ]);
    expect(calls.every((call) => call.outcome === 'ok' && call.token_id.startsWith('web:usr_'))).toBe(true);
  });
});
