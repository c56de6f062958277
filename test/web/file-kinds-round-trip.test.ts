// Questionnaire templates and audit checklist results as files: exported from the web (CSV, JSON) and by the CLI,
// imported back with importRecords (kinds questionnaire_template, audit_checklist_result) and the CLI's import, the
// same content after the round trip; bad rows refused with their row and column and nothing written; history rows
// with surface import and the call in the log; refused to a read-only token; another organization's template or
// audit neither read nor written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChanges, toolCalls } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { type BoundCli, cliOrganization } from '../cli-run.ts';
import {
  ACTOR_PASSWORD,
  type Actor,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, textOf, WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let alice: Actor;
let bob: Actor;
let org: string;
let otherOrg: string;
let token: string;
let otherToken: string;
let readToken: string;
let member: WebClient;
let outsider: WebClient;

const QUESTIONS = [
  {
    key: 'mfa',
    topic: 'Access control',
    text: 'Do all staff use a second factor?',
    answer_type: 'YES_NO',
    weight: 5,
  },
  {
    key: 'encryption',
    topic: 'Encryption — at rest',
    text: 'How is data encrypted, "at rest"?',
    answer_type: 'CHOICE',
    options: ['AES-256; managed keys', 'AES-128', 'Not encrypted'],
    acceptable: ['AES-256; managed keys'],
    weight: 3,
  },
  {
    key: 'no_weight',
    topic: 'Continuity',
    text: 'Tested backups this year?',
    answer_type: 'YES_NO',
    weight: 0,
  },
  { key: 'certs', topic: '=Certifications', text: 'Which certifications\ndo you hold?', answer_type: 'TEXT' },
];

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  alice = await createActor(runtime, 'alice');
  bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Exporting Org');
  otherOrg = await createOrg(runtime, bob, 'Other Org');
  token = await createToken(runtime, alice);
  otherToken = await createToken(runtime, bob);
  readToken = await createToken(runtime, alice, { scope: 'read' });
  member = new WebClient(runtime);
  await member.signIn(alice.email, ACTOR_PASSWORD);
  outsider = new WebClient(runtime);
  await outsider.signIn(bob.email, ACTOR_PASSWORD);
});

afterAll(async () => {
  await runtime.cleanup();
});

async function addTemplate(orgId = org, as = token): Promise<Row> {
  return (
    await ok(runtime, as, 'addQuestionnaireTemplate', {
      organization_id: orgId,
      name: 'Cloud vendors — 2026',
      description: 'For hosting, "storage" and backups.',
      questions: QUESTIONS,
    })
  ).questionnaire_template as Row;
}

/** A download as the member: its status and text (the CSV's byte-order mark kept). */
async function download(client: WebClient, path: string): Promise<{ status: number; text: string }> {
  const response = await client.request(path);
  return { status: response.status, text: response.html };
}

const importFile = (args: Row, as = token) => callDirect(runtime, as, 'importRecords', args);

/** The template without what a copy changes (id, organization, times). */
const contentOf = (template: Row) => ({
  name: template.name,
  description: template.description,
  questions: template.questions,
});

describe('questionnaire templates as files', () => {
  it('exports a template as CSV and JSON and imports the CSV into another organization unchanged', async () => {
    const template = await addTemplate();
    const csv = await download(member, `/orgs/${org}/questionnaire-templates/${template.id}/export.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text.replace(/^\uFEFF/, '')).toMatch(
      /^Template id,Template,Template description,Key,Topic,Question,/,
    );
    // The topic that looks like a formula is guarded; options holding ";" go one a line.
    expect(csv.text).toContain("'=Certifications");
    expect(csv.text).toContain('"AES-256; managed keys\nAES-128\nNot encrypted"');
    const json = await download(member, `/orgs/${org}/questionnaire-templates/${template.id}/export.json`);
    expect(JSON.parse(json.text)).toEqual(template);

    // Into Bob's organization: the Template id column is ignored, a new template is made.
    const imported = await importFile(
      {
        organization_id: otherOrg,
        kind: 'questionnaire_templates',
        csv: csv.text,
        columns: { 'Template id': '' },
      },
      otherToken,
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toMatchObject({
      kind: 'questionnaire_template',
      written: true,
      counts: { rows: 4, created: 1, updated: 0, unchanged: 0, refused: 0 },
    });
    const copies = (
      await ok(runtime, otherToken, 'listQuestionnaireTemplates', { organization_id: otherOrg })
    ).questionnaire_templates as Row[];
    expect(copies).toHaveLength(1);
    expect(copies[0]?.id).not.toBe(template.id);
    expect(contentOf(copies[0] as Row)).toEqual(contentOf(template));
  });

  it('updates a template from its own file by id, leaves an unchanged one alone, and writes history', async () => {
    const template = await addTemplate();
    const csv = (await download(member, `/orgs/${org}/questionnaire-templates/${template.id}/export.csv`))
      .text;
    const same = await importFile({ organization_id: org, kind: 'questionnaire_template', csv });
    expect(same.body).toMatchObject({ written: false, counts: { unchanged: 1, created: 0, updated: 0 } });
    // The weight of mfa (5 -> 8) changed in a spreadsheet.
    const edited = csv.replace(',Yes or no,,YES,5\r\n', ',Yes or no,,YES,8\r\n');
    expect(edited).not.toBe(csv);
    const updated = await importFile({ organization_id: org, kind: 'questionnaire_template', csv: edited });
    expect(updated.body).toMatchObject({ written: true, counts: { updated: 1 } });
    const read = (await ok(runtime, token, 'getQuestionnaireTemplate', { id: template.id }))
      .questionnaire_template as Row;
    expect((read.questions as Row[]).map((question) => question.weight)).toEqual([8, 3, 0, 0]);
    const history = await runtime.database.db
      .select()
      .from(recordChanges)
      .where(and(eq(recordChanges.record_id, String(template.id)), eq(recordChanges.surface, 'import')));
    expect(history.map((row) => [row.kind, row.action, row.tool])).toEqual([
      ['questionnaire_template', 'update', 'importRecords'],
    ]);
    await runtime.usage.flush();
    const [call] = await runtime.database.db
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.call_id, String(history[0]?.call_id)));
    expect([call?.tool, call?.outcome, call?.organization_id]).toEqual(['importRecords', 'ok', org]);
  });

  it('refuses bad rows with their row and column and writes nothing; a dry run reports them', async () => {
    const before = (await ok(runtime, token, 'listQuestionnaireTemplates', { organization_id: org }))
      .total_count;
    const csv = [
      'Template,Key,Topic,Question,Answer type,Options,Acceptable answers,Weight',
      'Good one,mfa,Access,Second factor?,Yes or no,,Yes,2',
      'Bad one,q1,Access,Pick one,Choice,Only one,,1',
      'Bad one,q2,Access,Again,Yes/No,,Maybe,1',
      'Bad one,q3,Access,Kind?,Sometimes,,,',
      'Bad one,q4,Access,Heavy?,yes or no,,,11',
    ].join('\n');
    const refused = await importFile({ organization_id: org, kind: 'questionnaire_template', csv });
    expect(refused.status).toBe(400);
    const error = errorOf(refused);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toMatch(/^Nothing was imported: 4 of 5 rows are refused \(row 3, column "Options"/);
    const dry = await importFile({
      organization_id: org,
      kind: 'questionnaire_template',
      csv,
      dry_run: true,
    });
    expect(dry.status).toBe(200);
    const errors = (dry.body as { errors: Row[] }).errors.map((row) => [row.row, row.column, row.message]);
    expect(errors).toEqual([
      [3, 'Options', 'A CHOICE question needs 2..10 different options.'],
      [4, 'Acceptable answers', '"Maybe" is not an answer of this question: one of YES, NO.'],
      [5, 'Answer type', expect.stringMatching(/^"Sometimes" is not an answer type: YES_NO \(Yes or no\)/)],
      [6, 'Weight', expect.stringMatching(/10/)],
    ]);
    expect(dry.body).toMatchObject({
      dry_run: true,
      written: false,
      counts: { rows: 5, created: 1, refused: 4 },
    });
    // Keys used twice in one template: the second is refused.
    const twice = await importFile({
      organization_id: org,
      kind: 'questionnaire_template',
      dry_run: true,
      csv: 'Template,Key,Topic,Question,Answer type\nT,k,A,One?,Yes or no\nT,k,A,Two?,Yes or no\n',
    });
    expect((twice.body as { errors: Row[] }).errors).toEqual([
      { row: 3, column: 'Key', field: 'key', message: 'Key "k" is used twice.' },
    ]);
    const after = (await ok(runtime, token, 'listQuestionnaireTemplates', { organization_id: org }))
      .total_count;
    expect(after).toBe(before);
  });

  it("neither reads nor writes another organization's template, and refuses a read-only token", async () => {
    const template = await addTemplate();
    const csv = (await download(member, `/orgs/${org}/questionnaire-templates/${template.id}/export.csv`))
      .text;
    // Bob's file naming Alice's template id, imported into his organization: refused as a missing id.
    const crossing = await importFile(
      { organization_id: otherOrg, kind: 'questionnaire_template', csv, dry_run: true },
      otherToken,
    );
    expect((crossing.body as { errors: Row[] }).errors).toEqual([
      {
        row: 2,
        column: 'Template id',
        field: 'template_id',
        message: `No questionnaire template ${template.id} in this organization: leave the id out to create a new one.`,
      },
    ]);
    // Into Alice's organization with Bob's token: not found, as for any record he cannot reach.
    const intoHers = await importFile(
      { organization_id: org, kind: 'questionnaire_template', csv },
      otherToken,
    );
    expect(intoHers.status).toBe(404);
    // Bob's web session: Alice's template is not found, through her organization's address or his own.
    expect(
      (await download(outsider, `/orgs/${org}/questionnaire-templates/${template.id}/export.csv`)).status,
    ).toBe(404);
    expect(
      (await download(outsider, `/orgs/${otherOrg}/questionnaire-templates/${template.id}/export.json`))
        .status,
    ).toBe(404);
    const readOnly = await importFile(
      { organization_id: org, kind: 'questionnaire_template', csv },
      readToken,
    );
    expect(readOnly.status).toBe(403);
    expect(errorOf(readOnly).code).toBe('insufficient_scope');
    const unchanged = (await ok(runtime, token, 'getQuestionnaireTemplate', { id: template.id }))
      .questionnaire_template as Row;
    expect(unchanged).toEqual(template);
  });
});

describe('audit checklist results as files', () => {
  let reqs: Row[];
  let framework: string;

  async function addAudit(orgId = org, as = token, requirementIds = reqs.map((req) => req.id)): Promise<Row> {
    return (
      await ok(runtime, as, 'addAudit', {
        organization_id: orgId,
        framework_id: framework,
        requirement_ids: requirementIds,
      })
    ).audit as Row;
  }

  const checklistOf = async (auditId: unknown, as = token) =>
    ((await ok(runtime, as, 'listAuditChecklist', { audit_id: auditId })).items as Row[]).map(
      ({ updated_at: _at, ...item }) => item,
    );

  beforeAll(async () => {
    framework = String(
      (
        (await ok(runtime, token, 'addFramework', { organization_id: org, name: 'ISO/IEC 27001' }))
          .framework as Row
      ).id,
    );
    reqs = [];
    for (const [reference, title] of [
      ['9.2', 'Internal audit'],
      ['A.5.18', 'Access rights'],
      ['A.8.1', 'User endpoint devices'],
      ['A.8.24', 'Use of cryptography'],
    ])
      reqs.push(
        (
          await ok(runtime, token, 'addRequirement', {
            organization_id: org,
            framework_id: framework,
            reference,
            title,
          })
        ).requirement as Row,
      );
  });

  it("exports an audit's results and imports them into another audit of the same scope unchanged", async () => {
    const audit = await addAudit();
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: reqs[0]?.id,
      result: 'CONFORMING',
      notes: 'Programme, plan and reports seen; "2026" cycle.\nSecond line.',
    });
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: reqs[1]?.id,
      result: 'NONCONFORMITY',
      notes: '=Two leavers kept access',
      raise_nonconformity: { reference_id: 'NC-2026-001', grade: 'MINOR' },
    });
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: reqs[2]?.id,
      result: 'OPPORTUNITY_FOR_IMPROVEMENT',
    });
    const csv = await download(member, `/orgs/${org}/audits/${audit.id}/checklist/export.csv`);
    expect(csv.status).toBe(200);
    expect(
      csv.text
        .replace(/^\uFEFF/, '')
        .split('\r\n')
        .slice(0, 3),
    ).toEqual([
      'Requirement,Title,Result,Notes,Evidence,Nonconformity,Grade',
      '9.2,Internal audit,Conforming,"Programme, plan and reports seen; ""2026"" cycle.\nSecond line.",,,',
      "A.5.18,Access rights,Nonconformity,'=Two leavers kept access,,NC-2026-001,Minor",
    ]);
    const json = JSON.parse(
      (await download(member, `/orgs/${org}/audits/${audit.id}/checklist/export.json`)).text,
    );
    expect(json.items.map((item: Row) => item.result)).toEqual([
      'CONFORMING',
      'NONCONFORMITY',
      'OPPORTUNITY_FOR_IMPROVEMENT',
      'NOT_AUDITED',
    ]);

    const next = await addAudit();
    const imported = await importFile({
      organization_id: org,
      kind: 'audit checklist',
      audit_id: next.id,
      csv: csv.text,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toMatchObject({
      kind: 'audit_checklist_result',
      written: true,
      counts: { rows: 4, created: 3, unchanged: 1, refused: 0 },
    });
    expect(await checklistOf(next.id)).toEqual(await checklistOf(audit.id));
    // Imported again: nothing changes.
    const again = await importFile({
      organization_id: org,
      kind: 'audit_checklist_result',
      audit_id: next.id,
      csv: csv.text,
    });
    expect(again.body).toMatchObject({ written: false, counts: { unchanged: 4 } });
    const history = await runtime.database.db
      .select()
      .from(recordChanges)
      .where(and(eq(recordChanges.record_id, String(next.id)), eq(recordChanges.surface, 'import')));
    expect(history.map((row) => (row.after as { checklist: Row }).checklist.requirement_id).sort()).toEqual(
      [reqs[0]?.id, reqs[1]?.id, reqs[2]?.id].sort(),
    );
  });

  it('refuses rows outside the scope, unknown results and a nonconformity without its record, writing nothing', async () => {
    const audit = await addAudit(org, token, [reqs[0]?.id, reqs[1]?.id]);
    const csv = [
      'Requirement,Result,Notes,Nonconformity',
      '9.2,Conforming,fine,',
      'A.8.24,Conforming,,',
      'A.5.18,Nonconformity,,',
      '9.2,Observed,,',
      'A.5.18,Observation,,NC-none',
    ].join('\n');
    const refused = await importFile({
      organization_id: org,
      kind: 'audit_checklist_result',
      audit_id: audit.id,
      csv,
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toMatch(/^Nothing was imported: 4 of 5 rows are refused/);
    const errors = (errorOf(refused).details as Row[]).map((detail) => detail.path);
    expect(errors).toEqual([
      'row 3, column "Requirement", field requirement',
      'row 4, column "Nonconformity", field nonconformity',
      'row 5, column "Requirement", field requirement',
      'row 5, column "Result", field result',
      'row 6, column "Requirement", field requirement',
      'row 6, column "Nonconformity", field nonconformity',
    ]);
    expect((await checklistOf(audit.id)).every((item) => item.recorded === false)).toBe(true);
    const missing = await importFile({ organization_id: org, kind: 'audit_checklist_result', csv });
    expect(errorOf(missing).message).toContain('give audit_id');
  });

  it("neither reads nor fills another organization's audit, and refuses a read-only token", async () => {
    const audit = await addAudit();
    const csv = 'Requirement,Result\n9.2,Conforming\n';
    // Bob's token, Alice's audit: not found whether he names his organization or hers.
    for (const organizationId of [otherOrg, org]) {
      const crossing = await importFile(
        { organization_id: organizationId, kind: 'audit_checklist_result', audit_id: audit.id, csv },
        otherToken,
      );
      expect(crossing.status).toBe(404);
    }
    // Alice naming her audit under Bob's organization: not found either.
    const elsewhere = await importFile({
      organization_id: otherOrg,
      kind: 'audit_checklist_result',
      audit_id: audit.id,
      csv,
    });
    expect(elsewhere.status).toBe(404);
    expect((await download(outsider, `/orgs/${org}/audits/${audit.id}/checklist/export.csv`)).status).toBe(
      404,
    );
    expect(
      (await download(outsider, `/orgs/${otherOrg}/audits/${audit.id}/checklist/export.csv`)).status,
    ).toBe(404);
    const readOnly = await importFile(
      { organization_id: org, kind: 'audit_checklist_result', audit_id: audit.id, csv },
      readToken,
    );
    expect(readOnly.status).toBe(403);
    expect((await checklistOf(audit.id)).every((item) => item.recorded === false)).toBe(true);
  });
});

describe('imports from the web pages', () => {
  /** Posts a file from the page at `page` through its import form (the token first, the file last). */
  async function uploadFrom(client: WebClient, page: string, action: string, name: string, csv: string) {
    const opened = await client.get(page);
    expect(opened.status).toBe(200);
    expect(opened.html).toContain(`action="${action}"`);
    const body = new FormData();
    body.append('_csrf', csrfOf(opened.html));
    if (page.includes('/vendors/')) body.append('back', page);
    body.append('file', new File([csv], name, { type: 'text/csv' }));
    return client.request(action, { method: 'POST', body, headers: { origin: new URL(client.base).origin } });
  }

  it("imports an audit's results from its page and a template from a vendor's page, or lists the refused rows", async () => {
    const framework = (await ok(runtime, token, 'addFramework', { organization_id: org, name: 'Web ISO' }))
      .framework as Row;
    const requirement = (
      await ok(runtime, token, 'addRequirement', {
        organization_id: org,
        framework_id: framework.id,
        reference: 'W.1',
        title: 'Web one',
      })
    ).requirement as Row;
    const audit = (
      await ok(runtime, token, 'addAudit', {
        organization_id: org,
        framework_id: framework.id,
        requirement_ids: [requirement.id],
      })
    ).audit as Row;
    const auditPage = `/orgs/${org}/audits/${audit.id}`;
    const action = `${auditPage}/checklist/import`;
    const refused = await uploadFrom(
      member,
      auditPage,
      action,
      'bad.csv',
      'Requirement,Result\nW.9,Conforming\n',
    );
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain(
      'row 2, column "Requirement", field requirement: No requirement "W.9"',
    );
    const imported = await uploadFrom(
      member,
      auditPage,
      action,
      'results.csv',
      'Requirement,Result,Notes\nW.1,Conforming,Seen\n',
    );
    expect(imported.status).toBe(303);
    expect(imported.location).toBe(auditPage);
    const items = (await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id })).items as Row[];
    expect(items.map((item) => [item.result, item.notes])).toEqual([['CONFORMING', 'Seen']]);
    const after = await member.get(auditPage);
    expect(textOf(after.html)).toContain('Imported results.csv: 1 created, 0 updated, 0 unchanged.');

    const vendor = (await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Web vendor' }))
      .vendor as Row;
    const vendorPage = `/orgs/${org}/vendors/${vendor.id}`;
    const templates = await uploadFrom(
      member,
      vendorPage,
      `/orgs/${org}/questionnaire-templates/import`,
      'template.csv',
      'Template,Key,Topic,Question,Answer type,Weight\nFrom the web,mfa,Access,Second factor?,Yes or no,2\n',
    );
    expect(templates.status).toBe(303);
    expect(templates.location).toBe(vendorPage);
    const listed = (
      await ok(runtime, token, 'listQuestionnaireTemplates', { organization_id: org, size: 100 })
    ).questionnaire_templates as Row[];
    expect(
      listed.filter((row) => row.name === 'From the web').map((row) => (row.questions as Row[]).length),
    ).toEqual([1]);

    // Bob is no member of Alice's organization: her audit's import is not found.
    const body = new FormData();
    body.append('_csrf', csrfOf((await outsider.get(`/orgs/${otherOrg}/audits`)).html));
    body.append('file', new File(['Requirement,Result\nW.1,Observation\n'], 'x.csv'));
    const crossing = await outsider.request(action, {
      method: 'POST',
      body,
      headers: { origin: new URL(outsider.base).origin },
    });
    expect(crossing.status).toBe(404);
    expect(
      ((await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id })).items as Row[])[0]?.result,
    ).toBe('CONFORMING');
  });
});

describe('the CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  let orgId: string;
  let cli: BoundCli;
  let remove: () => void;

  beforeAll(async () => {
    ({ dir, env, orgId, cli, remove } = await cliOrganization('cmcp-file-kinds-'));
  });

  afterAll(() => remove());

  it('imports a template file, exports it, and imports the export back as the same template', async () => {
    const file = join(dir, 'template.csv');
    writeFileSync(
      file,
      [
        'Template	Template description	Key	Topic	Question	Answer type	Options	Acceptable answers	Weight',
        'Suppliers	Short one	mfa	Access	Second factor?	YES_NO		yes	4',
        'Suppliers		tier	Risk	Which tier?	choice	Gold; Silver	gold	2',
        'Suppliers		notes	Other	Anything else?	text			',
      ].join('\n'),
    );
    const imported = await cli('import', '--org', orgId, '--kind', 'questionnaire_templates', file);
    expect(imported.code, imported.err).toBe(0);
    expect(JSON.parse(imported.out)).toMatchObject({ written: true, counts: { created: 1, refused: 0 } });
    const { openNodeDatabase } = await import('../../src/db/open-node.ts');
    const database = await openNodeDatabase(env.DATABASE_URL ?? '');
    const templates = await database.client.execute('select id, questions from questionnaire_templates');
    database.client.close();
    const id = String(templates.rows[0]?.id);
    expect(JSON.parse(String(templates.rows[0]?.questions))).toEqual([
      {
        key: 'mfa',
        topic: 'Access',
        text: 'Second factor?',
        answer_type: 'YES_NO',
        options: [],
        acceptable: ['YES'],
        weight: 4,
      },
      {
        key: 'tier',
        topic: 'Risk',
        text: 'Which tier?',
        answer_type: 'CHOICE',
        options: ['Gold', 'Silver'],
        acceptable: ['Gold'],
        weight: 2,
      },
      {
        key: 'notes',
        topic: 'Other',
        text: 'Anything else?',
        answer_type: 'TEXT',
        options: [],
        acceptable: [],
        weight: 0,
      },
    ]);
    const out = join(dir, 'out.csv');
    const exported = await cli(
      'export',
      '--org',
      orgId,
      '--kind',
      'questionnaire_templates',
      '--id',
      id,
      out,
    );
    expect(exported.code, exported.err).toBe(0);
    expect(JSON.parse(exported.out)).toEqual({ kind: 'questionnaire_template', file: out, rows: 3 });
    expect(readFileSync(out, 'utf8')).toContain(
      'Suppliers,Short one,tier,Risk,Which tier?,Choice,Gold; Silver,Gold,2',
    );
    const back = await cli('import', '--org', orgId, '--kind', 'questionnaire_templates', out);
    expect(JSON.parse(back.out)).toMatchObject({ written: false, counts: { unchanged: 1 } });
    const other = await cli(
      'export',
      '--org',
      orgId,
      '--kind',
      'questionnaire_templates',
      '--id',
      newId('qtp'),
      out,
    );
    expect(other.code).not.toBe(0);
    expect(other.err).toContain('not found');
  });
});
