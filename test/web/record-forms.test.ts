// Adding, editing and deleting records in the web interface: generated forms, roles, CSRF, errors, stale forms.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { formFieldsOf } from '../../src/web/record-forms/fields.ts';
import { REGISTER_PAGES } from '../../src/web/register-pages.ts';
import {
  ACTOR_PASSWORD,
  addMember,
  createActor,
  ok,
  runtimesCleanedAfterEach,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, type Fields, signedUpRuntime, textOf, WebClient } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup() {
  const signedUp = await signedUpRuntime(runtimes);
  return { ...signedUp, base: `/orgs/${signedUp.organizationId}` };
}

/** A second person in the organization with the given role, signed in on their own client. */
async function memberClient(runtime: TestRuntime, organizationId: string, role: 'EDITOR' | 'VIEWER') {
  const actor = await createActor(runtime, role.toLowerCase());
  await addMember(runtime, organizationId, actor, role);
  const client = new WebClient(runtime);
  const signedIn = await client.signIn(actor.email, ACTOR_PASSWORD);
  expect(signedIn.status).toBe(303);
  return client;
}

/** The message shown next to a field (the element the input's aria-describedby names). */
function fieldError(html: string, name: string): string | null {
  const match = new RegExp(`id="field-${name}-error">([^<]*)<`).exec(html);
  return match?.[1] ?? null;
}

function inputValue(html: string, name: string): string | null {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return match?.[1] ?? null;
}

/** Adds a risk through the direct surface (as another client of the organization would). */
async function addRiskByApi(
  at: { runtime: TestRuntime; token: string; organizationId: string },
  fields: Record<string, unknown>,
): Promise<Risk> {
  const added = await ok<{ risk: Risk }>(at.runtime, at.token, 'addRisk', {
    organization_id: at.organizationId,
    ...fields,
  });
  return added.risk;
}

const RISK_FORM: Fields = {
  name: 'Stolen laptop exposes patient files',
  description: 'A laptop without disk encryption is lost.',
  category: 'Security',
  status: 'OPEN',
  treatment: 'MITIGATE',
  owner_id: '',
  inherent_likelihood: '4',
  inherent_impact: '5',
  residual_likelihood: '',
  residual_impact: '',
  note: '',
};

type Risk = { id: string; name: string; updated_at: string; status: string; measure_ids: string[] };

describe('record forms', () => {
  it('generates each kind’s form from its add tool: required fields, enums as selects, dates, pickers', async () => {
    const { client, base } = await setup();
    for (const page of REGISTER_PAGES) {
      const response = await client.get(`${base}/${page.slug}/new`);
      expect(response.status, page.slug).toBe(200);
      for (const field of formFieldsOf(page)) {
        expect(response.html, `${page.slug} ${field.name}`).toContain(`id="field-${field.name}"`);
      }
    }
    const risk = formFieldsOf(REGISTER_PAGES.find((page) => page.kind === 'risk')!);
    const byName = Object.fromEntries(risk.map((field) => [field.name, field]));
    expect(byName.name).toMatchObject({ kind: 'text', required: true });
    expect(byName.status).toMatchObject({ kind: 'enum', defaultValue: 'OPEN' });
    expect(byName.status?.options).toEqual(['OPEN', 'IN_TREATMENT', 'MITIGATED', 'ACCEPTED', 'CLOSED']);
    // The tool takes up to 10 (the largest scale an organization may set); its own scale is checked on write.
    expect(byName.inherent_likelihood).toMatchObject({ kind: 'integer', required: true, min: 1, max: 10 });
    expect(byName.owner_id).toMatchObject({ kind: 'ref', target: 'person', required: false });
    expect(byName.measure_ids).toMatchObject({ kind: 'refs', target: 'measure' });
    expect(byName.measure_ids?.links?.link.name).toBe('linkRiskMeasure');
    const audit = formFieldsOf(REGISTER_PAGES.find((page) => page.kind === 'audit')!);
    expect(audit.find((field) => field.name === 'framework_id')).toMatchObject({
      kind: 'ref',
      required: true,
    });
    expect(audit.find((field) => field.name === 'valid_from')).toMatchObject({ kind: 'date' });
    const vendor = formFieldsOf(REGISTER_PAGES.find((page) => page.kind === 'vendor')!);
    expect(vendor.find((field) => field.name === 'countries')).toMatchObject({ kind: 'list' });
    expect(vendor.find((field) => field.name === 'website_url')).toMatchObject({ kind: 'url' });
    const asset = formFieldsOf(REGISTER_PAGES.find((page) => page.kind === 'asset')!);
    expect(asset.find((field) => field.name === 'vendor_ids')).toMatchObject({
      kind: 'refs',
      target: 'vendor',
    });

    const html = (await client.get(`${base}/risks/new`)).html;
    expect(html).toMatch(/<select id="field-status" name="status"[^>]*>/);
    expect(html).toContain('<option value="OPEN" selected="">Open</option>');
    expect(html).toMatch(/<input id="field-inherent_likelihood"[^>]*type="number"[^>]*min="1" max="10"/);
    expect((await client.get(`${base}/audits/new`)).html).toMatch(
      /<input id="field-valid_from"[^>]*type="date"/,
    );
  });

  it('adds a record of every kind through the add tool, with references chosen among the organization’s records', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const person = (
      await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: organizationId,
        full_name: 'Grace Hopper',
        email: 'grace@example.com',
      })
    ).person;
    const framework = (
      await ok<{ framework: { id: string } }>(runtime, token, 'addFramework', {
        organization_id: organizationId,
        name: 'ISO 27001',
      })
    ).framework;
    const vendor = (
      await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: 'Hetzner',
      })
    ).vendor;
    // The risk a risk acceptance's form accepts.
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Accepted by form', inherent_likelihood: 2, inherent_impact: 2 },
    );
    // The measure a control test's form tests.
    const measure = (
      await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
        organization_id: organizationId,
        name: 'Tested by form',
      })
    ).measure;
    // The campaign an access review entry's form belongs to.
    const campaign = (
      await ok<{ access_review: { id: string } }>(runtime, token, 'addAccessReview', {
        organization_id: organizationId,
        name: 'Reviewed by form',
      })
    ).access_review;
    const refs: Record<string, string> = {
      access_review: campaign.id,
      person: person.id,
      framework: framework.id,
      vendor: vendor.id,
      risk: risk.id,
      measure: measure.id,
    };
    // A picker lists the organization's records by name.
    const auditForm = await client.get(`${base}/audits/new`);
    expect(auditForm.html).toContain(`<option value="${framework.id}">ISO 27001</option>`);

    for (const page of REGISTER_PAGES) {
      const fields: Fields = {};
      for (const field of formFieldsOf(page)) {
        const example = page.spec.example[field.name];
        if (field.target && (field.required || field.kind === 'ref')) {
          const id = refs[field.target];
          if (id) fields[field.name] = field.kind === 'refs' ? [id] : id;
        } else if (Array.isArray(example)) fields[field.name] = example.map(String).join('\n');
        else if (example !== undefined && !field.target) fields[field.name] = String(example);
      }
      if (page.kind === 'person') fields.email = 'new.person@example.com';
      const response = await client.submit(`${base}/${page.slug}/new`, `${base}/${page.slug}/new`, fields);
      expect(response.status, `${page.slug}: ${textOf(response.html).slice(0, 400)}`).toBe(303);
      const location = response.location ?? '';
      expect(location).toMatch(new RegExp(`^${base}/${page.slug}/${page.spec.prefix}_`));
      const id = location.split('/').at(-1) ?? '';
      // An incident's timeline entries and notifications, added later, belong to it.
      if (page.kind === 'incident') refs.incident = id;
      const stored = (
        await ok<Record<string, Record<string, unknown>>>(runtime, token, `get${page.spec.noun}`, { id })
      )[page.spec.key];
      for (const [name, value] of Object.entries(page.spec.example)) {
        if (name === 'organization_id' || name.endsWith('_id') || name.endsWith('_ids')) continue;
        if (page.kind === 'person' && name === 'email') continue;
        expect(stored?.[name], `${page.slug}.${name}`).toEqual(value);
      }
      for (const field of formFieldsOf(page)) {
        if (field.kind === 'ref' && refs[field.target ?? '']) {
          expect(stored?.[field.name], `${page.slug}.${field.name}`).toBe(refs[field.target ?? '']);
        }
      }
    }
  });

  it('adds a risk, redirects to it with a one-time notice, and logs the call as a web write', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const measure = (
      await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
        organization_id: organizationId,
        name: 'Full-disk encryption',
      })
    ).measure;
    const response = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      measure_ids: [measure.id],
    });
    expect(response.status).toBe(303);
    const id = (response.location ?? '').split('/').at(-1) ?? '';
    const risk = (await ok<{ risk: Risk & Record<string, unknown> }>(runtime, token, 'getRisk', { id })).risk;
    expect(risk).toMatchObject({
      name: 'Stolen laptop exposes patient files',
      inherent_score: 20,
      residual_score: 20,
      owner_id: null,
      note: null,
      measure_ids: [measure.id],
    });
    const shown = await client.get(response.location ?? '');
    expect(textOf(shown.html)).toContain('Risk “Stolen laptop exposes patient files” was added.');
    // The add's warnings come with the notice: the record was written, a softer problem remains.
    expect(textOf(shown.html)).toContain(
      'To check: The residual level high is above the appetite (medium): such a risk needs an owner. Set owner_id.',
    );
    expect(textOf((await client.get(response.location ?? '')).html)).not.toContain('was added');

    await runtime.usage.flush();
    const calls = await runtime.database.db
      .select({ tool: toolCalls.tool, outcome: toolCalls.outcome })
      .from(toolCalls)
      .where(and(eq(toolCalls.surface, 'web'), eq(toolCalls.organization_id, organizationId)));
    expect(calls).toContainEqual({ tool: 'addRisk', outcome: 'ok' });
    expect(calls).toContainEqual({ tool: 'linkRiskMeasure', outcome: 'ok' });
  });

  it('shows a save that changed a risk and linked two measures as one entry of its history', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const measure = async (name: string) =>
      (
        await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
          organization_id: organizationId,
          name,
        })
      ).measure.id;
    const [mfa, backups] = [await measure('MFA'), await measure('Backups')];
    const added = await client.submit(`${base}/risks/new`, `${base}/risks/new`, RISK_FORM);
    const path = added.location ?? '';
    const edit = await client.get(`${path}/edit`);
    const updatedAt = /name="expected_updated_at" value="([^"]+)"/.exec(edit.html)?.[1] ?? '';
    const saved = await client.submit(`${path}/edit`, `${path}/edit`, {
      ...RISK_FORM,
      status: 'IN_TREATMENT',
      measure_ids: [mfa, backups],
      expected_updated_at: updatedAt,
    });
    expect(saved.status).toBe(303);
    const page = await client.get(path);
    const rows = [...page.html.matchAll(/<tr id="chg_[^"]+">([\s\S]*?)<\/tr>/g)].map((match) =>
      textOf(match[1] ?? ''),
    );
    // Two saves: the add, then the edit with its two links (three tool calls, one call id).
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^.*Changed Linked Details/);
    expect(rows[0]).toContain('tool updateRisk');
    expect(rows[0]?.match(/tool linkRiskMeasure/g)).toHaveLength(2);
    expect(rows[0]).toContain('Status : Open → In treatment');
    expect(rows[1]).toContain('Added');
  });

  it('shows the tool’s errors next to the fields and keeps what was typed', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const response = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      name: '',
      inherent_likelihood: '11',
      owner_id: 'per_doesnotexist0000000',
    });
    expect(response.status).toBe(400);
    expect(fieldError(response.html, 'name')).toBe('This field is required.');
    expect(fieldError(response.html, 'inherent_likelihood')).toMatch(/&lt;=10/);
    expect(response.html).toMatch(/id="field-inherent_likelihood"[^>]*aria-invalid="true"/);
    expect(textOf(response.html)).toContain('The risk was not added.');
    expect(inputValue(response.html, 'inherent_likelihood')).toBe('11');
    expect(response.html).toContain('A laptop without disk encryption is lost.</textarea>');
    expect(response.html).toContain('<a href="#field-name">Name: This field is required.</a>');
    const listed = await ok<{ total_count: number }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(listed.total_count).toBe(0);

    const wrongNumber = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      inherent_impact: 'high',
    });
    expect(fieldError(wrongNumber.html, 'inherent_impact')).toBe('Enter a whole number.');

    const vendor = await client.submit(`${base}/vendors/new`, `${base}/vendors/new`, {
      name: 'Hetzner',
      countries: 'DE\nGermany',
      website_url: 'not a url',
    });
    expect(vendor.status).toBe(400);
    expect(fieldError(vendor.html, 'countries')).toContain('ISO 3166-1 alpha-2');
    expect(fieldError(vendor.html, 'website_url')).toBe('Expected an http(s) URL');
    expect(vendor.html).toContain('DE\nGermany</textarea>');

    const missingPerson = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      owner_id: newId('per'),
    });
    expect(missingPerson.status).toBe(404);
    expect(fieldError(missingPerson.html, 'owner_id')).toContain('Not found in this organization');
  });

  it('never cuts text short: shows each limit with a counter, and refuses longer text in the form’s words', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const form = (await client.get(`${base}/risks/new`)).html;
    expect(form).not.toContain('maxlength');
    expect(form).toMatch(/<input id="field-name"[^>]*data-limit="200"/);
    expect(form).toContain('<span class="counter" id="field-name-counter" aria-hidden="true">0 / 200</span>');
    expect(form).toMatch(/<textarea id="field-description"[^>]*data-limit="10000"/);
    const longName = 'n'.repeat(10_000);
    const longDescription = 'd'.repeat(10_001);
    const refused = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      name: longName,
      description: longDescription,
    });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.html, 'name')).toBe('At most 200 characters; this has 10,000.');
    expect(fieldError(refused.html, 'description')).toBe('At most 10,000 characters; this has 10,001.');
    // Everything typed comes back whole, with its count.
    expect(refused.html).toContain(`value="${longName}"`);
    expect(refused.html).toContain(`${longDescription}</textarea>`);
    expect(refused.html).toContain(
      '<span class="counter over" id="field-name-counter" aria-hidden="true">10,000 / 200</span>',
    );
    const listed = await ok<{ total_count: number }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(listed.total_count).toBe(0);
    // Ten thousand characters exactly are taken, and kept whole.
    const exact = 'e'.repeat(10_000);
    const added = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      description: exact,
    });
    expect(added.status).toBe(303);
    const id = (added.location ?? '').split('/').at(-1) ?? '';
    expect(
      (await ok<{ risk: { description: string } }>(runtime, token, 'getRisk', { id })).risk.description
        .length,
    ).toBe(10_000);
  });

  it('edits a risk with expected_updated_at, and refuses a stale form with a link to reload it', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Phishing', inherent_likelihood: 3, inherent_impact: 3 },
    );
    const editPath = `${base}/risks/${risk.id}/edit`;
    const form = await client.get(editPath);
    expect(form.status).toBe(200);
    expect(inputValue(form.html, 'expected_updated_at')).toBe(risk.updated_at);
    expect(inputValue(form.html, 'name')).toBe('Phishing');

    const saved = await client.post(editPath, {
      _csrf: csrfOf(form.html),
      ...RISK_FORM,
      name: 'Phishing of finance staff',
      residual_likelihood: '1',
      expected_updated_at: risk.updated_at,
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${base}/risks/${risk.id}`);
    const after = (
      await ok<{ risk: Risk & Record<string, unknown> }>(runtime, token, 'getRisk', { id: risk.id })
    ).risk;
    expect(after).toMatchObject({ name: 'Phishing of finance staff', residual_score: 5, inherent_score: 20 });
    expect(textOf((await client.get(saved.location ?? '')).html)).toContain('was saved.');

    // Someone else changes it while the form is open: the form's expected_updated_at is now stale.
    const stale = await client.get(editPath);
    await ok(runtime, token, 'updateRisk', { id: risk.id, note: 'Changed through the API' });
    const refused = await client.post(editPath, {
      _csrf: csrfOf(stale.html),
      ...RISK_FORM,
      name: 'My newer name',
      expected_updated_at: inputValue(stale.html, 'expected_updated_at') ?? '',
    });
    expect(refused.status).toBe(409);
    const text = textOf(refused.html);
    expect(text).toContain('Changed while you were editing');
    expect(refused.html).toContain(`<a href="${editPath}">reload the form</a>`);
    // Who changed what meanwhile (from the history), and the person's values beside the current ones.
    expect(text).toContain('ada@example.com via HTTP (direct), token seeding');
    expect(text).toContain('Note : — → Changed through the API');
    expect(text).toContain('Name My newer name Phishing of finance staff');
    expect(text).toContain('Note — Changed through the API');
    expect(inputValue(refused.html, 'name')).toBe('My newer name');
    const kept = (
      await ok<{ risk: Risk & Record<string, unknown> }>(runtime, token, 'getRisk', { id: risk.id })
    ).risk;
    expect(kept).toMatchObject({ name: 'Phishing of finance staff', note: 'Changed through the API' });
    // The form now carries the current version's time: saving again applies the person's values to it.
    expect(inputValue(refused.html, 'expected_updated_at')).toBe(kept.updated_at);
    const applied = await client.post(editPath, {
      _csrf: csrfOf(refused.html),
      ...RISK_FORM,
      name: 'My newer name',
      expected_updated_at: inputValue(refused.html, 'expected_updated_at') ?? '',
    });
    expect(applied.status).toBe(303);
    const mine = (
      await ok<{ risk: Risk & Record<string, unknown> }>(runtime, token, 'getRisk', { id: risk.id })
    ).risk;
    expect(mine).toMatchObject({ name: 'My newer name' });
  });

  it('explains a refused state transition next to the status field', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Flood', inherent_likelihood: 1, inherent_impact: 4, status: 'CLOSED' },
    );
    const editPath = `${base}/risks/${risk.id}/edit`;
    const form = await client.get(editPath);
    const refused = await client.post(editPath, {
      _csrf: csrfOf(form.html),
      ...RISK_FORM,
      name: 'Flood',
      status: 'MITIGATED',
      expected_updated_at: risk.updated_at,
    });
    expect(refused.status).toBe(409);
    expect(fieldError(refused.html, 'status')).toBe(
      'Cannot change risk status from CLOSED to MITIGATED. Allowed from CLOSED: OPEN.',
    );
    expect(refused.html).toContain('<option value="MITIGATED" selected="">MITIGATED</option>');
  });

  it('offers only the states allowed from the record’s own, and says why the others are missing', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const closed = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Flood', inherent_likelihood: 1, inherent_impact: 4, status: 'CLOSED' },
    );
    const form = (await client.get(`${base}/risks/${closed.id}/edit`)).html;
    const options = (name: string, html: string) =>
      [
        ...(
          new RegExp(`<select id="field-${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? ''
        ).matchAll(/<option value="([A-Z_]+)"/g),
      ].map((match) => match[1]);
    expect(options('status', form)).toEqual(['CLOSED', 'OPEN']);
    expect(textOf(form)).toContain('From Closed it can move to Open only.');
    // Treatment moves freely: all four, no note.
    expect(options('treatment', form)).toEqual(['MITIGATE', 'ACCEPT', 'AVOID', 'TRANSFER']);
    const open = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Fire', inherent_likelihood: 1, inherent_impact: 4 },
    );
    expect(options('status', (await client.get(`${base}/risks/${open.id}/edit`)).html)).toEqual([
      'OPEN',
      'IN_TREATMENT',
      'MITIGATED',
      'ACCEPTED',
      'CLOSED',
    ]);
    const audit = (
      await ok<{ audit: { id: string } }>(runtime, token, 'addAudit', {
        organization_id: organizationId,
        framework_id: (
          await ok<{ framework: { id: string } }>(runtime, token, 'addFramework', {
            organization_id: organizationId,
            name: 'SOC 2',
          })
        ).framework.id,
        state: 'OUTDATED',
      })
    ).audit;
    const auditForm = (await client.get(`${base}/audits/${audit.id}/edit`)).html;
    expect(options('state', auditForm)).toEqual(['OUTDATED']);
    expect(textOf(auditForm)).toContain('Outdated is final: it does not change any more.');
  });

  it('links and unlinks a risk’s measures from the edit form', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const add = async (name: string) =>
      (
        await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
          organization_id: organizationId,
          name,
        })
      ).measure.id;
    const first = await add('Encryption');
    const second = await add('Awareness training');
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Data leak', inherent_likelihood: 3, inherent_impact: 4 },
    );
    await ok(runtime, token, 'linkRiskMeasure', { risk_id: risk.id, measure_id: first });
    const editPath = `${base}/risks/${risk.id}/edit`;
    const form = await client.get(editPath);
    expect(form.html).toMatch(
      new RegExp(`<input type="checkbox" name="measure_ids" value="${first}" checked=""`),
    );
    const current = (await ok<{ risk: Risk }>(runtime, token, 'getRisk', { id: risk.id })).risk;
    const saved = await client.post(editPath, {
      _csrf: csrfOf(form.html),
      ...RISK_FORM,
      name: 'Data leak',
      measure_ids: [second],
      expected_updated_at: current.updated_at,
    });
    expect(saved.status).toBe(303);
    const after = (await ok<{ risk: Risk }>(runtime, token, 'getRisk', { id: risk.id })).risk;
    expect(after.measure_ids).toEqual([second]);
  });

  it('deletes after a confirmation page, and explains a refused delete', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Office fire', inherent_likelihood: 1, inherent_impact: 5 },
    );
    const record = await client.get(`${base}/risks/${risk.id}`);
    expect(record.html).toContain(`href="${base}/risks/${risk.id}/delete"`);
    const confirm = await client.get(`${base}/risks/${risk.id}/delete`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.html)).toContain('Delete risk “Office fire”? This permanently deletes the risk.');
    // Still there until confirmed.
    expect((await ok<{ risk: Risk }>(runtime, token, 'getRisk', { id: risk.id })).risk.name).toBe(
      'Office fire',
    );
    const deleted = await client.post(`${base}/risks/${risk.id}/delete`, { _csrf: csrfOf(confirm.html) });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`${base}/risks`);
    expect(textOf((await client.get(`${base}/risks`)).html)).toContain('Risk “Office fire” was deleted.');
    expect((await client.get(`${base}/risks/${risk.id}`)).status).toBe(404);

    const framework = (
      await ok<{ framework: { id: string } }>(runtime, token, 'addFramework', {
        organization_id: organizationId,
        name: 'SOC 2',
      })
    ).framework;
    await ok(runtime, token, 'addAudit', { organization_id: organizationId, framework_id: framework.id });
    const frameworkConfirm = await client.get(`${base}/frameworks/${framework.id}/delete`);
    expect(textOf(frameworkConfirm.html)).toContain('It cannot be deleted while audits still point at it.');
    expect(textOf(frameworkConfirm.html)).toContain(
      'Its requirements are deleted with it, each with its history.',
    );
    const refused = await client.post(`${base}/frameworks/${framework.id}/delete`, {
      _csrf: csrfOf(frameworkConfirm.html),
    });
    expect(refused.status).toBe(409);
    expect(textOf(refused.html)).toContain('Cannot delete this framework: audits still point at it (1).');
  });

  it('warns on the delete page that the fields pointing at a person or an audit will be cleared', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const person = (
      await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: organizationId,
        full_name: 'Grace Hopper',
        email: 'grace@example.com',
      })
    ).person;
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Office fire', inherent_likelihood: 1, inherent_impact: 5, owner_id: person.id },
    );
    const personConfirm = textOf((await client.get(`${base}/people/${person.id}/delete`)).html);
    expect(personConfirm).toContain('Where they point at it, these fields are cleared:');
    expect(personConfirm).toContain('the owner of risks');
    expect(personConfirm).toContain('the business owner of vendors, the security owner of vendors');

    const framework = (
      await ok<{ framework: { id: string } }>(runtime, token, 'addFramework', {
        organization_id: organizationId,
        name: 'ISO 27001',
      })
    ).framework;
    const audit = (
      await ok<{ audit: { id: string } }>(runtime, token, 'addAudit', {
        organization_id: organizationId,
        framework_id: framework.id,
        name: 'Stage 1',
      })
    ).audit;
    await ok(runtime, token, 'addNonconformity', {
      organization_id: organizationId,
      reference_id: 'NC-1',
      audit_id: audit.id,
    });
    const auditConfirm = textOf((await client.get(`${base}/audits/${audit.id}/delete`)).html);
    expect(auditConfirm).toContain(
      'Where they point at it, these fields are cleared: the audit of nonconformities.',
    );

    const vendor = (
      await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: 'Hetzner',
      })
    ).vendor;
    const vendorConfirm = textOf((await client.get(`${base}/vendors/${vendor.id}/delete`)).html);
    expect(vendorConfirm).toContain(
      'It is taken out of the vendors of assets, the vendors of data classifications, the records of evidence, the linked records of tasks, the vendors involved of incidents, the processors of processing activities, the systems (vendors) of access reviews.',
    );

    // What the page promised happens: the owner and the audit are cleared.
    const deleted = await client.post(`${base}/people/${person.id}/delete`, {
      _csrf: csrfOf((await client.get(`${base}/people/${person.id}/delete`)).html),
    });
    expect(deleted.status).toBe(303);
    expect(
      (await ok<{ risk: { owner_id: string | null } }>(runtime, token, 'getRisk', { id: risk.id })).risk
        .owner_id,
    ).toBeNull();
  });
});

describe('record forms: pickers of large registers', () => {
  it('takes an id with 100 suggestions when the register holds more than a picker lists', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const ids: string[] = [];
    for (let index = 0; index < 101; index++) {
      const added = await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: organizationId,
        full_name: `Person ${String(index).padStart(3, '0')}`,
        email: `person${index}@example.com`,
      });
      ids.push(added.person.id);
    }
    const form = await client.get(`${base}/risks/new`);
    expect(form.html).toMatch(
      /<input id="field-owner_id" name="owner_id"[^>]*type="text"[^>]*list="field-owner_id-choices"/,
    );
    const suggestions = [...form.html.matchAll(/<option value="(per_[a-z0-9]+)" label="Person (\d+)"/g)];
    expect(suggestions).toHaveLength(100);
    expect(suggestions[0]?.[2]).toBe('000'); // by name
    expect(textOf(form.html)).toContain(
      'An id. Suggestions list 100 of 101; search the register for the others.',
    );
    const last = ids[100] ?? '';
    const added = await client.submit(`${base}/risks/new`, `${base}/risks/new`, {
      ...RISK_FORM,
      owner_id: last,
    });
    expect(added.status).toBe(303);
    const id = (added.location ?? '').split('/').at(-1) ?? '';
    const risk = await ok<{ risk: { owner_id: string } }>(runtime, token, 'getRisk', { id });
    expect(risk.risk.owner_id).toBe(last);
  });
});

describe('record forms: who may use them', () => {
  it('shows a VIEWER no forms and refuses a forged POST with 403', async () => {
    const { runtime, client: owner, organizationId, token, base } = await setup();
    const risk = await addRiskByApi(
      { runtime, token, organizationId },
      { name: 'Phishing', inherent_likelihood: 3, inherent_impact: 3 },
    );
    expect((await owner.get(`${base}/risks`)).html).toContain(`href="${base}/risks/new"`);
    const viewer = await memberClient(runtime, organizationId, 'VIEWER');
    const list = await viewer.get(`${base}/risks`);
    expect(list.status).toBe(200);
    expect(list.html).not.toContain('/risks/new');
    const recordPage = await viewer.get(`${base}/risks/${risk.id}`);
    expect(recordPage.html).not.toContain('/edit"');
    expect(recordPage.html).not.toContain('/delete"');
    for (const path of ['/risks/new', `/risks/${risk.id}/edit`, `/risks/${risk.id}/delete`]) {
      const response = await viewer.get(`${base}${path}`);
      expect(response.status, path).toBe(403);
      expect(textOf(response.html)).toContain('Your role in Acme Health is VIEWER');
    }
    const csrf = csrfOf(list.html);
    const forgedAdd = await viewer.post(`${base}/risks/new`, { _csrf: csrf, ...RISK_FORM });
    const forgedEdit = await viewer.post(`${base}/risks/${risk.id}/edit`, { _csrf: csrf, ...RISK_FORM });
    const forgedDelete = await viewer.post(`${base}/risks/${risk.id}/delete`, { _csrf: csrf });
    expect([forgedAdd.status, forgedEdit.status, forgedDelete.status]).toEqual([403, 403, 403]);
    const after = await ok<{ risks: Risk[] }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(after.risks.map((item) => item.name)).toEqual(['Phishing']);
  });

  it('lets an EDITOR add, and refuses another organization’s records as not found', async () => {
    const { runtime, organizationId, base } = await setup();
    const editor = await memberClient(runtime, organizationId, 'EDITOR');
    const added = await editor.submit(`${base}/risks/new`, `${base}/risks/new`, RISK_FORM);
    expect(added.status).toBe(303);
    const other = new WebClient(runtime);
    await other.signUp('eve@example.com', 'Other Org');
    expect((await other.get(`${base}/risks/new`)).status).toBe(404);
    expect((await other.get(`${added.location ?? ''}/edit`)).status).toBe(404);
  });

  it('refuses a form without its CSRF token or from another site', async () => {
    const { runtime, client, organizationId, token, base } = await setup();
    const noToken = await client.post(`${base}/risks/new`, RISK_FORM);
    expect(noToken.status).toBe(403);
    const form = await client.get(`${base}/risks/new`);
    const crossSite = await client.post(
      `${base}/risks/new`,
      { _csrf: csrfOf(form.html), ...RISK_FORM },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const listed = await ok<{ total_count: number }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(listed.total_count).toBe(0);
  });
});
