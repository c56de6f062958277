// The audit programme on the Worker host in workerd, over libSQL's HTTP client: a checklist result outside the audit's
// scope is refused with nothing written; a NONCONFORMITY raises its graded nonconformity in the same batch and is
// refused a second time; getAuditProgramme counts the checked requirements as audited (ISO 27001 9.2.2) and the
// unchecked one as not audited.
import { afterAll, describe, expect, it } from 'vitest';
import { callTool as call, ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

const database = testDatabase();
afterAll(() => database.client.close());

describe('audit programme on the Worker', () => {
  it('records a checklist, raises the finding once, and lists the requirements audited and not', async () => {
    const now = new Date();
    const { organizationId: organization_id, token } = await ownedOrganization(database, 'audits');
    const framework = (await call(token, 'addFramework', { organization_id, name: 'ISO/IEC 27001' })).body
      .framework as Row;
    const ids: string[] = [];
    for (const reference of ['A.5.1', 'A.5.2', 'A.5.3']) {
      const added = await call(token, 'addRequirement', {
        organization_id,
        framework_id: framework.id,
        reference,
        title: `Control ${reference}`,
      });
      expect(added.status).toBe(200);
      ids.push(String((added.body.requirement as Row).id));
    }
    const day = now.toISOString().slice(0, 10);
    const audit = await call(token, 'addAudit', {
      organization_id,
      framework_id: framework.id,
      audit_type: 'INTERNAL',
      actual_start_on: day,
      requirement_ids: ids.slice(0, 2),
    });
    expect(audit.status).toBe(200);
    const auditId = (audit.body.audit as Row).id;
    const outside = await call(token, 'recordAuditChecklistResult', {
      audit_id: auditId,
      requirement_id: ids[2],
      result: 'CONFORMING',
    });
    expect(outside.status).toBe(400);
    expect((outside.body.error as Row).message).toContain(
      `Requirement A.5.3 (${ids[2]}) is not in the scope`,
    );
    const conforming = await call(token, 'recordAuditChecklistResult', {
      audit_id: auditId,
      requirement_id: ids[0],
      result: 'CONFORMING',
    });
    expect(conforming.status).toBe(200);
    const finding = {
      audit_id: auditId,
      requirement_id: ids[1],
      result: 'NONCONFORMITY',
      raise_nonconformity: { reference_id: 'NC-WK-1', grade: 'MAJOR' },
    };
    const raised = await call(token, 'recordAuditChecklistResult', finding);
    expect(raised.status).toBe(200);
    expect(raised.body.raised_nonconformity).toMatchObject({
      reference_id: 'NC-WK-1',
      grade: 'MAJOR',
      clause: 'A.5.2',
      audit_id: auditId,
      requirement_ids: [ids[1]],
    });
    const again = await call(token, 'recordAuditChecklistResult', finding);
    expect(again.status).toBe(409);
    const findings = await call(token, 'listNonconformities', {
      organization_id,
      filter: { audit_id: auditId },
    });
    expect((findings.body.nonconformities as Row[]).map((row) => row.reference_id)).toEqual(['NC-WK-1']);
    const programme = await call(token, 'getAuditProgramme', { framework_id: framework.id });
    expect(programme.status).toBe(200);
    expect(programme.body.years).toEqual([
      { year: now.getUTCFullYear(), audits: 1, by_type: { INTERNAL: 1 } },
    ]);
    expect((programme.body.audited as Row[]).map((row) => [row.reference, row.last_audited_on])).toEqual([
      ['A.5.1', day],
      ['A.5.2', day],
    ]);
    expect((programme.body.not_audited as Row[]).map((row) => row.reference)).toEqual(['A.5.3']);
  });
});
