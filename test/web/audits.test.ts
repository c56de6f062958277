// An audit's page: its checklist, each requirement of the scope with its result, notes and the finding it raised,
// linked to the requirement and the nonconformity; a requirement without a result reads Not audited.
import { describe, expect, it } from 'vitest';
import { ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('audit page', () => {
  it('shows the checklist with results, notes and the finding raised', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const add = async (tool: string, key: string, args: Row) =>
      (await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row;
    const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001' });
    const access = await add('addRequirement', 'requirement', {
      framework_id: framework.id,
      reference: 'A.5.15',
      title: 'Access control',
    });
    const devices = await add('addRequirement', 'requirement', {
      framework_id: framework.id,
      reference: 'A.8.1',
      title: 'User endpoint devices',
    });
    const audit = await add('addAudit', 'audit', {
      framework_id: framework.id,
      name: 'Internal audit',
      requirement_ids: [access.id, devices.id],
    });
    const raised = await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: devices.id,
      result: 'NONCONFORMITY',
      notes: 'Two laptops <unencrypted>.',
      raise_nonconformity: { reference_id: 'NC-WEB-1', grade: 'MINOR' },
    });
    const finding = raised.raised_nonconformity as Row;
    const base = `/orgs/${organizationId}`;
    const page = await client.get(`${base}/audits/${audit.id}`);
    expect(page.status).toBe(200);
    const section = page.html.slice(page.html.indexOf('id="checklist"'));
    expect(textOf(section)).toContain('1 nonconformity, 1 not audited');
    expect(section).toContain(`href="${base}/requirements/${devices.id}"`);
    expect(section).toContain(`href="${base}/nonconformities/${finding.id}"`);
    expect(textOf(section)).toContain('NC-WEB-1 (Minor)');
    // Notes are text, escaped.
    expect(section).toContain('Two laptops &lt;unencrypted&gt;.');
    expect(textOf(section)).toMatch(/A\.5\.15 Access control\s*Not audited/);
  });

  it('records a result per requirement with a raised finding, and shows the programme', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const add = async (tool: string, key: string, args: Row) =>
      (await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row;
    const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001' });
    const requirement = (reference: string, title: string) =>
      add('addRequirement', 'requirement', { framework_id: framework.id, reference, title });
    const access = await requirement('A.5.15', 'Access control');
    const devices = await requirement('A.8.1', 'User endpoint devices');
    const outside = await requirement('A.8.24', 'Use of cryptography');
    // Last year: a day that has passed whatever today is.
    const year = new Date().getUTCFullYear() - 1;
    const audit = await add('addAudit', 'audit', {
      framework_id: framework.id,
      name: 'Internal audit',
      audit_type: 'INTERNAL',
      actual_start_on: `${year}-06-10`,
      actual_end_on: `${year}-06-11`,
      requirement_ids: [access.id, devices.id],
    });
    const base = `/orgs/${organizationId}`;
    const auditPath = `${base}/audits/${audit.id}`;
    const page = await client.get(auditPath);
    const recordPath = `${auditPath}/checklist/${devices.id}`;
    expect(page.html).toContain(`href="${recordPath}"`);
    const checklist = async () =>
      (await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id })).items as Row[];

    const form = await client.get(recordPath);
    expect(form.status).toBe(200);
    expect(textOf(form.html)).toContain('Checklist: A.8.1 User endpoint devices');
    const fields = {
      _csrf: csrfOf(form.html),
      result: 'NONCONFORMITY',
      notes: 'Two of 25 laptops <unencrypted>.',
      raise_reference: 'NC-WEB-7',
      raise_grade: 'MAJOR',
      raise_due: `${year + 2}-03-31`,
    };
    // A nonconformity graded as an observation: refused with what was typed, nothing recorded or raised.
    const wrong = await client.post(recordPath, { ...fields, raise_grade: 'OBSERVATION' });
    expect(wrong.status).toBe(400);
    expect(textOf(wrong.html)).toContain('Not recorded:');
    expect(wrong.html).toContain('Two of 25 laptops &lt;unencrypted&gt;.</textarea>');
    expect(wrong.html).toContain('value="NC-WEB-7"');
    expect((await checklist()).find((item) => item.requirement_id === devices.id)?.recorded).toBe(false);

    const recorded = await client.post(recordPath, fields);
    expect(recorded.status).toBe(303);
    const shown = await client.follow(recorded);
    expect(textOf(shown.html)).toContain('Recorded: A.8.1 Nonconformity, nonconformity NC-WEB-7 raised.');
    const item = (await checklist()).find((row) => row.requirement_id === devices.id);
    expect(item).toMatchObject({
      result: 'NONCONFORMITY',
      notes: 'Two of 25 laptops <unencrypted>.',
      nonconformity_reference: 'NC-WEB-7',
      nonconformity_grade: 'MAJOR',
    });
    // A requirement outside the audit's scope has no checklist page.
    expect((await client.get(`${auditPath}/checklist/${outside.id}`)).status).toBe(404);
    expect(
      (await client.post(`${auditPath}/checklist/${outside.id}`, { ...fields, raise_reference: '' })).status,
    ).toBe(404);

    // The programme, linked from the audits register: one audit last year, 1 of 3 requirements audited.
    const register = await client.get(`${base}/audits`);
    expect(register.html).toContain(`href="${base}/audits/programme"`);
    const programme = await client.get(`${base}/audits/programme?framework_id=${framework.id}&years=3`);
    expect(programme.status).toBe(200);
    const programmeText = textOf(programme.html);
    expect(programmeText).toContain(`${year} 1 1 Internal`);
    expect(programmeText).toContain('1 of 3 applicable requirements audited; 2 not audited.');
    const notAudited = programme.html.slice(
      programme.html.indexOf('id="programme-not-audited"'),
      programme.html.indexOf('id="programme-audited"'),
    );
    expect(textOf(notAudited)).toContain('A.5.15 Access control');
    expect(textOf(notAudited)).toContain('A.8.24 Use of cryptography');
    expect(textOf(notAudited)).not.toContain('A.8.1 ');
    expect(textOf(programme.html.slice(programme.html.indexOf('id="programme-audited"')))).toContain(
      `A.8.1 User endpoint devices ${year}-06-11`,
    );
  });
});
