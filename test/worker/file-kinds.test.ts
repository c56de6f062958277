// Questionnaire templates and audit checklists as files on the Worker: the web's CSV download streamed from the
// Worker, imported back through importRecords in one batch over the libSQL HTTP client (its guards included), with
// the same content as on Node; a refused file writes nothing.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { browserSession } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { callTool, cliTokenService, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

const PASSWORD = 'correct horse battery staple';

describe('templates and checklists as files on the Worker', () => {
  it('downloads a template and a checklist as CSV and imports them back unchanged', async () => {
    const database = testDatabase();
    const email = `wk-files-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: PASSWORD,
    });
    const org = (
      await createOrganization(database.db, new Date(), { name: 'Worker Files Org', ownerId: user.id })
    ).id;
    const { token } = await cliTokenService(database).create({
      userId: user.id,
      name: 'worker files',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const session = browserSession((request) => exports.default.fetch(request), BASE);
    expect((await session.signIn({ email, password: PASSWORD })).status).toBe(303);
    const ok = async (tool: string, args: Row) => {
      const called = await callTool(token, tool, args);
      expect(called.status, JSON.stringify(called.body)).toBe(200);
      return called.body;
    };

    const template = (
      await ok('addQuestionnaireTemplate', {
        organization_id: org,
        name: 'Hosting — short',
        questions: [
          {
            key: 'mfa',
            topic: 'Access',
            text: 'Second factor for "admins"?',
            answer_type: 'YES_NO',
            weight: 4,
          },
          {
            key: 'tier',
            topic: 'Risk',
            text: 'Tier?',
            answer_type: 'CHOICE',
            options: ['A; top', 'B'],
            acceptable: ['A; top'],
          },
        ],
      })
    ).questionnaire_template as Row;
    const templateCsv = await session.send(`/orgs/${org}/questionnaire-templates/${template.id}/export.csv`);
    expect(templateCsv.status).toBe(200);
    const templateText = await templateCsv.text();
    const copied = await ok('importRecords', {
      organization_id: org,
      kind: 'questionnaire_template',
      csv: templateText,
      columns: { 'Template id': '' },
    });
    expect(copied).toMatchObject({ written: true, counts: { rows: 2, created: 1 } });
    const templates = (await ok('listQuestionnaireTemplates', { organization_id: org }))
      .questionnaire_templates as Row[];
    const copy = templates.find((row) => row.id !== template.id) as Row;
    expect([copy.name, copy.description, copy.questions]).toEqual([
      template.name,
      template.description,
      template.questions,
    ]);

    const framework = (await ok('addFramework', { organization_id: org, name: 'ISO/IEC 27001' }))
      .framework as Row;
    const reqs: Row[] = [];
    for (const reference of ['A.5.1', 'A.5.2'])
      reqs.push(
        (
          await ok('addRequirement', {
            organization_id: org,
            framework_id: framework.id,
            reference,
            title: reference,
          })
        ).requirement as Row,
      );
    const addAudit = async () =>
      (
        await ok('addAudit', {
          organization_id: org,
          framework_id: framework.id,
          requirement_ids: reqs.map((req) => req.id),
        })
      ).audit as Row;
    const audit = await addAudit();
    await ok('recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: reqs[0]?.id,
      result: 'NONCONFORMITY',
      notes: 'Policy not approved',
      raise_nonconformity: { reference_id: 'NC-W-1', grade: 'MAJOR' },
    });
    await ok('recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: reqs[1]?.id,
      result: 'CONFORMING',
    });
    const checklistCsv = await session.send(`/orgs/${org}/audits/${audit.id}/checklist/export.csv`);
    expect(checklistCsv.status).toBe(200);
    const checklistText = await checklistCsv.text();
    const next = await addAudit();
    const refused = await callTool(token, 'importRecords', {
      organization_id: org,
      kind: 'audit_checklist_result',
      audit_id: next.id,
      csv: `${checklistText}A.9.9,Conforming,,,,,\r\n`,
    });
    expect(refused.status).toBe(400);
    const items = async (auditId: unknown) =>
      ((await ok('listAuditChecklist', { audit_id: auditId })).items as Row[]).map(
        ({ updated_at: _at, ...item }) => item,
      );
    expect((await items(next.id)).map((item) => item.recorded)).toEqual([false, false]);
    const imported = await ok('importRecords', {
      organization_id: org,
      kind: 'audit_checklist_result',
      audit_id: next.id,
      csv: checklistText,
    });
    expect(imported).toMatchObject({ written: true, counts: { rows: 2, created: 2 } });
    expect(await items(next.id)).toEqual(await items(audit.id));
  });
});
