// An audit's page: its checklist, each requirement of the scope with its result, notes and the finding it raised,
// linked to the requirement and the nonconformity; a requirement without a result reads Not audited.
import { afterEach, describe, expect, it } from 'vitest';
import { ok, type TestRuntime } from '../helpers.ts';
import { signedUpRuntime, textOf } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes: TestRuntime[] = [];

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.cleanup();
});

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
});
