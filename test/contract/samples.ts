// Valid arguments for every tool and one record of every kind, generated from the tool map's specs, over HTTP.
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { STARTER_QUESTIONS } from '../../src/tools/questionnaires/starter-template.ts';
import type { RegisterKind, RegisterSpec } from '../../src/tools/registers/spec.ts';
import { setCookiesOf } from '../browser-session.ts';
import { BASE, type Fetcher, ok, send } from './host.ts';

export type RecordIds = Record<RegisterKind, string>;

export function specOf(kind: string): RegisterSpec {
  const spec = REGISTER_SPECS.find((item) => item.kind === kind);
  if (!spec) throw new Error(`No register spec for ${kind}`);
  return spec;
}

let freshCounter = 0;

/**
 * Fresh values for the spec's unique fields (a person's email, a requirement's reference), so that adding its example
 * twice never collides: `{email: 'unique-7@example.com'}`, `{reference: 'A.5.15-7'}`.
 */
export function freshUniqueValues(spec: RegisterSpec): Record<string, unknown> {
  freshCounter += 1;
  return Object.fromEntries(
    (spec.unique ?? []).map((entry) => {
      const field = typeof entry === 'string' ? entry : entry.field;
      const value =
        field === 'email'
          ? `unique-${freshCounter}@example.com`
          : `${String(spec.example[field])}-${freshCounter}`;
      return [field, value];
    }),
  );
}

/** The spec's example arguments with its placeholder ids replaced by real ones of the organization. */
export function exampleArguments(
  spec: RegisterSpec,
  organizationId: string,
  ids: Partial<RecordIds>,
): Record<string, unknown> {
  const args: Record<string, unknown> = { ...spec.example, organization_id: organizationId };
  if (spec.kind === 'audit' || spec.kind === 'requirement') args.framework_id = ids.framework;
  // Its scope: the seeded requirement, of the same framework (seeded before it).
  if (spec.kind === 'audit' && ids.requirement) args.requirement_ids = [ids.requirement];
  if (spec.kind === 'document') args.approver_ids = ids.person ? [ids.person] : [];
  if (spec.kind === 'risk_acceptance') Object.assign(args, { risk_id: ids.risk, approver_id: ids.person });
  if (spec.kind === 'control_test') Object.assign(args, { measure_id: ids.measure, tester_id: ids.person });
  if (spec.kind === 'vendor_assessment')
    Object.assign(args, { vendor_id: ids.vendor, assessor_id: ids.person });
  if (spec.kind === 'incident_action' || spec.kind === 'incident_notification')
    args.incident_id = ids.incident;
  if (spec.kind === 'access_review') {
    delete args.requirements;
    Object.assign(args, { reviewer_ids: ids.person ? [ids.person] : [], requirement_ids: [ids.requirement] });
  }
  if (spec.kind === 'access_review_entry')
    Object.assign(args, { access_review_id: ids.access_review, reviewer_id: ids.person });
  if (spec.kind === 'management_review')
    Object.assign(args, {
      attendee_ids: ids.person ? [ids.person] : [],
      task_ids: ids.task ? [ids.task] : [],
    });
  // People's emails are unique within an organization, requirements' references within a framework.
  return { ...args, ...freshUniqueValues(spec) };
}

// Frameworks before audits, which need one.
const ORDER: RegisterKind[] = [
  'person',
  'vendor',
  'vendor_assessment',
  'risk',
  'risk_acceptance',
  'measure',
  'control_test',
  'obligation',
  'framework',
  'requirement',
  'asset',
  'data_classification',
  'audit',
  'nonconformity',
  'continual_improvement',
  'document',
  'evidence',
  'task',
  'processing_activity',
  'incident',
  'incident_action',
  'incident_notification',
  'dpia',
  'data_subject_request',
  'access_review',
  'access_review_entry',
  'management_review',
];

/** Adds one record of every kind to the organization and returns their ids. */
export async function seedRecords(host: Fetcher, token: string, organizationId: string): Promise<RecordIds> {
  const ids: Partial<RecordIds> = {};
  for (const kind of ORDER) {
    const spec = specOf(kind);
    const result = await ok(host, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
    ids[kind] = (result[spec.key] as { id: string }).id;
  }
  return ids as RecordIds;
}

/** One field each update tool can change, with the value the record must show afterwards. */
export const UPDATE_SAMPLE: Record<RegisterKind, Record<string, unknown>> = {
  vendor: { description: 'updated by the contract' },
  vendor_assessment: { summary: 'updated by the contract' },
  risk: { note: 'updated by the contract' },
  risk_acceptance: { note: 'updated by the contract' },
  measure: { description: 'updated by the contract' },
  control_test: { notes: 'updated by the contract' },
  obligation: { area: 'updated by the contract' },
  person: { position: 'updated by the contract' },
  framework: { description: 'updated by the contract' },
  asset: { description: 'updated by the contract' },
  data_classification: { description: 'updated by the contract' },
  nonconformity: { root_cause: 'updated by the contract' },
  continual_improvement: { source: 'updated by the contract' },
  audit: { auditor: 'updated by the contract' },
  requirement: { title: 'updated by the contract' },
  document: { next_review_on: '2027-06-30' },
  evidence: { description: 'updated by the contract' },
  task: { description: 'updated by the contract' },
  incident: { root_cause: 'updated by the contract' },
  incident_action: { action: 'updated by the contract' },
  incident_notification: { note: 'updated by the contract' },
  processing_activity: { retention: 'updated by the contract' },
  dpia: { necessity: 'updated by the contract' },
  access_review: { description: 'updated by the contract' },
  access_review_entry: { access_level: 'updated by the contract' },
  data_subject_request: { note: 'updated by the contract' },
  management_review: { decisions: 'updated by the contract' },
};

/** A small CSV catalog for importFrameworkCatalog's samples. */
const CATALOG_SAMPLE =
  'ref,title,parent,section\nSAMPLE,Sample section,,yes\nSAMPLE.1,Sample requirement,SAMPLE,no\n';

/** The link tools of the registers: their owner and target arguments and the list they change. */
const LINKS: Record<string, { owner: RegisterKind; target: RegisterKind; list: string; linking: boolean }> = {
  linkRiskMeasure: { owner: 'risk', target: 'measure', list: 'measure_ids', linking: true },
  unlinkRiskMeasure: { owner: 'risk', target: 'measure', list: 'measure_ids', linking: false },
  linkRequirementMeasure: { owner: 'requirement', target: 'measure', list: 'measure_ids', linking: true },
  unlinkRequirementMeasure: { owner: 'requirement', target: 'measure', list: 'measure_ids', linking: false },
};

/**
 * A document IN_REVIEW whose approver is the token's holder: a person with the email the history shows for the
 * holder's own writes (added once per organization).
 */
/** A new document whose version 1 the caller's person is asked to acknowledge: its id and the request's. */
async function documentToAcknowledge(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<{ document_id: string; request_id: string }> {
  const approver = await callerPerson(host, token, organizationId, ids);
  const added = await ok(host, token, 'addDocument', {
    organization_id: organizationId,
    title: 'Policy to acknowledge',
    content: 'Read me.',
  });
  const document_id = (added.document as { id: string }).id;
  const asked = await ok(host, token, 'requestAcknowledgements', {
    document_id,
    version: 1,
    audience: 'PEOPLE',
    person_ids: [approver],
  });
  return { document_id, request_id: (asked.request as { id: string }).id };
}

async function documentToApprove(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<string> {
  const approver = await callerPerson(host, token, organizationId, ids);
  const added = await ok(host, token, 'addDocument', {
    organization_id: organizationId,
    title: 'Policy to approve',
    status: 'IN_REVIEW',
    content: 'Approve me.',
    approver_ids: [approver],
  });
  return (added.document as { id: string }).id;
}

/** The person of the register with the caller's address (added if missing). */
async function callerPerson(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<string> {
  const history = await ok(host, token, 'listChanges', {
    organization_id: organizationId,
    filter: { record_id: ids.vendor },
  });
  const email = String((history.changes as { user_email: string }[])[0]?.user_email);
  const found = await ok(host, token, 'listPeople', {
    organization_id: organizationId,
    filter: { query: email },
  });
  const existing = (found.people as { id: string; email: string }[]).find((person) => person.email === email);
  return (
    existing?.id ??
    ((
      (await ok(host, token, 'addPerson', { organization_id: organizationId, full_name: 'Approver', email }))
        .person as { id: string }
    ).id as string)
  );
}

/** A starter questionnaire template of the organization's own (added for each sample that needs one). */
async function questionnaireTemplate(host: Fetcher, token: string, organizationId: string): Promise<string> {
  const added = await ok(host, token, 'addStarterQuestionnaireTemplate', { organization_id: organizationId });
  return (added.questionnaire_template as { id: string }).id;
}

/** sendVendorQuestionnaire's arguments: the seeded vendor, a template of its own, due in a week (the clock is real). */
async function questionnaireToSend(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<Record<string, unknown>> {
  return {
    vendor_id: ids.vendor,
    template_id: await questionnaireTemplate(host, token, organizationId),
    contact_name: 'Sample contact',
    contact_email: 'contact@vendor.example',
    due_date: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
  };
}

/** A questionnaire sent to the seeded vendor: its id and link path. */
async function questionnaireSent(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<{ id: string; link_path: string }> {
  const sent = await ok(
    host,
    token,
    'sendVendorQuestionnaire',
    await questionnaireToSend(host, token, organizationId, ids),
  );
  return { id: (sent.vendor_questionnaire as { id: string }).id, link_path: String(sent.link_path) };
}

/**
 * A questionnaire answered on its public page as the vendor's contact answers it (a page read for the form's token and
 * cookie, then a same-origin post): YES, the first option, a sentence. Its id.
 */
async function questionnaireAnswered(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<string> {
  const { id, link_path } = await questionnaireSent(host, token, organizationId, ids);
  const page = await send(host, link_path);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = setCookiesOf(page.headers)
    .map((line) => line.split(';')[0])
    .join('; ');
  const form = new URLSearchParams({ _csrf: csrf });
  for (const question of STARTER_QUESTIONS)
    form.set(
      `answer_${question.key}`,
      question.answer_type === 'YES_NO' ? 'YES' : (question.options[0] ?? 'Answered by the contract.'),
    );
  const answered = await send(host, link_path, {
    method: 'POST',
    headers: { origin: BASE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (answered.status !== 200) throw new Error(`The questionnaire page answered ${answered.status}`);
  return id;
}

/** A trust page's slug of its own per organization (a slug is unique on the service). */
const trustSlugOf = (organizationId: string) => `t-${organizationId.slice(4)}`;

/**
 * A pending request for a published document the organization's trust page offers on request, asked for on the
 * public form as a visitor does (a page read for the form's token and cookie, then a same-origin post). Its id.
 */
async function trustRequestPending(
  host: Fetcher,
  token: string,
  organizationId: string,
  ids: RecordIds,
): Promise<string> {
  const slug = trustSlugOf(organizationId);
  await ok(host, token, 'updateTrustPage', { organization_id: organizationId, slug, enabled: true });
  const documentId = await documentToApprove(host, token, organizationId, ids);
  await ok(host, token, 'approveDocument', { id: documentId });
  await ok(host, token, 'updateDocument', { id: documentId, status: 'PUBLISHED' });
  await ok(host, token, 'setTrustPageItem', {
    organization_id: organizationId,
    record_id: documentId,
    visibility: 'ON_REQUEST',
  });
  const path = `/trust/${slug}/request/${documentId}`;
  const page = await send(host, path);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = setCookiesOf(page.headers)
    .map((line) => line.split(';')[0])
    .join('; ');
  const email = `visitor-${documentId.slice(4)}@buyer.example`;
  const asked = await send(host, path, {
    method: 'POST',
    headers: { origin: BASE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      _csrf: csrf,
      name: 'Contract Visitor',
      email,
      company: 'Buyer',
      accept_terms: 'yes',
    }),
  });
  if (asked.status !== 200) throw new Error(`The trust page's request form answered ${asked.status}`);
  const listed = await ok(host, token, 'listTrustAccessRequests', {
    organization_id: organizationId,
    filter: { status: 'PENDING' },
    size: 100,
  });
  const request = (listed.trust_access_requests as { id: string; email: string }[]).find(
    (row) => row.email === email,
  );
  if (!request) throw new Error('The trust page request was not recorded');
  return request.id;
}

/** A framework whose every requirement has a justification, for publishing its statement of applicability. */
async function justifiedFramework(host: Fetcher, token: string, organizationId: string): Promise<string> {
  const framework = await ok(host, token, 'addFramework', {
    organization_id: organizationId,
    name: 'Published',
  });
  const id = (framework.framework as { id: string }).id;
  await ok(host, token, 'addRequirement', {
    organization_id: organizationId,
    framework_id: id,
    reference: 'P.1',
    title: 'Published requirement',
    justification: 'Required by the customer contract.',
  });
  return id;
}

/** Valid arguments for a tool. Delete tools get a record added for them, so the shared ones stay. */
export async function sampleArguments(
  host: Fetcher,
  token: string,
  toolName: string,
  organizationId: string,
  ids: RecordIds,
): Promise<Record<string, unknown>> {
  if (toolName === 'listOrganizations') return {};
  if (toolName === 'getOrganization') return { id: organizationId };
  if (toolName === 'findRecords') return { organization_id: organizationId, query: 'a' };
  if (toolName === 'findTools') return { task: 'statement of applicability' };
  // The call tools run another tool by name: a read, an update, and a delete of a vendor added for it.
  if (toolName === 'callReadTool')
    return { name: 'listRisks', arguments: { organization_id: organizationId } };
  if (toolName === 'callWriteTool')
    return { name: 'updateRisk', arguments: { id: ids.risk, ...UPDATE_SAMPLE.risk } };
  if (toolName === 'callDestructiveTool') {
    const spec = specOf('vendor');
    const added = await ok(host, token, 'addVendor', exampleArguments(spec, organizationId, ids));
    return { name: 'deleteVendor', arguments: { id: (added[spec.key] as { id: string }).id } };
  }
  // A proposal of a vendor, asked for with proposeWrite (nothing is written until a person approves it).
  if (toolName === 'proposeWrite')
    return { name: 'addVendor', arguments: exampleArguments(specOf('vendor'), organizationId, ids) };
  if (toolName === 'listProposals') return { organization_id: organizationId };
  if (toolName === 'getProposal') {
    const made = await ok(host, token, 'proposeWrite', {
      name: 'updateRisk',
      arguments: { id: ids.risk, description: 'Proposed by the contract' },
    });
    return { id: (made.proposal as { id: string }).id };
  }
  if (toolName === 'getComplianceSummary') return { organization_id: organizationId };
  if (toolName === 'getRiskHeatMap') return { organization_id: organizationId };
  if (toolName === 'markReviewed') return { id: ids.risk, note: 'Reviewed by the contract' };
  if (toolName === 'myWork') return { organization_id: organizationId };
  if (toolName === 'gatherManagementReviewInputs')
    return { organization_id: organizationId, period_from: '2026-01-01', period_to: '2026-12-31' };
  if (toolName === 'getOrganizationSettings') return { organization_id: organizationId };
  if (toolName === 'updateOrganizationSettings')
    return { organization_id: organizationId, time_zone: 'Europe/Paris', incident_regimes: ['GDPR', 'NIS2'] };
  if (toolName === 'listMembers') return { organization_id: organizationId };
  if (toolName === 'listChanges')
    return { organization_id: organizationId, filter: { record_id: ids.vendor } };
  if (
    toolName === 'getStatementOfApplicability' ||
    toolName === 'getFrameworkCoverage' ||
    toolName === 'getAuditProgramme'
  )
    return { framework_id: ids.framework };
  if (toolName === 'recordAuditChecklistResult')
    return {
      audit_id: ids.audit,
      requirement_id: ids.requirement,
      result: 'CONFORMING',
      notes: 'Checked by the contract',
    };
  if (toolName === 'listAuditChecklist') return { audit_id: ids.audit };
  // A dry run: the plan only, so the seeded framework stays as it is for the other tools.
  if (toolName === 'importFrameworkCatalog')
    return { framework_id: ids.framework, format: 'csv', content: CATALOG_SAMPLE, dry_run: true };
  if (toolName === 'listCatalogs') return { organization_id: organizationId };
  if (toolName === 'listCrosswalkMappings')
    return {
      organization_id: organizationId,
      catalog: 'iso-27001-2022',
      reference: 'A.8.5',
      to_catalog: 'soc2-2017',
    };
  // The sample organization adopted no catalogue: no proposals to make, list or decide.
  if (toolName === 'proposeMappings') return { organization_id: organizationId, dry_run: true };
  if (toolName === 'listMappingProposals') return { organization_id: organizationId };
  if (toolName === 'acceptMappingProposals' || toolName === 'declineMappingProposals')
    return { organization_id: organizationId, framework_id: ids.framework };
  // A dry run: the report only.
  if (toolName === 'importRecords')
    return {
      organization_id: organizationId,
      kind: 'vendor',
      csv: 'Name,Category\nSample vendor,cloud provider\n',
      dry_run: true,
    };
  if (toolName === 'listQuestionnaireTemplates') return { organization_id: organizationId };
  if (toolName === 'getQuestionnaireTemplate')
    return { id: await questionnaireTemplate(host, token, organizationId) };
  if (toolName === 'addStarterQuestionnaireTemplate') return { organization_id: organizationId };
  if (toolName === 'addQuestionnaireTemplate')
    return {
      organization_id: organizationId,
      name: 'Contract questionnaire',
      questions: [
        // Every property given: a strict-mode call (test/core/functions.test.ts) names all of an item's.
        {
          key: 'mfa',
          topic: 'Access control',
          text: 'Is a second factor required?',
          answer_type: 'YES_NO',
          options: [],
          acceptable: ['YES'],
          weight: 1,
        },
        {
          key: 'notice',
          topic: 'Incident response',
          text: 'How soon would you tell us?',
          answer_type: 'CHOICE',
          options: ['A day', 'A week'],
          acceptable: ['A day'],
          weight: 2,
        },
      ],
    };
  if (toolName === 'updateQuestionnaireTemplate')
    return { id: await questionnaireTemplate(host, token, organizationId), name: 'Renamed by the contract' };
  if (toolName === 'sendVendorQuestionnaire') return questionnaireToSend(host, token, organizationId, ids);
  if (toolName === 'getTrustPage') return { organization_id: organizationId };
  if (toolName === 'updateTrustPage')
    return {
      organization_id: organizationId,
      slug: trustSlugOf(organizationId),
      title: 'Contract trust page',
      contact_email: 'security@contract.example',
      show_sub_processors: true,
    };
  if (toolName === 'setTrustPageItem')
    return { organization_id: organizationId, record_id: ids.framework, visibility: 'PUBLIC' };
  if (toolName === 'listTrustAccessRequests')
    return { organization_id: organizationId, filter: { status: 'PENDING' } };
  if (toolName === 'decideTrustAccessRequest')
    return { id: await trustRequestPending(host, token, organizationId, ids), decision: 'APPROVE' };
  if (toolName === 'listVendorQuestionnaires')
    return { organization_id: organizationId, filter: { vendor_id: ids.vendor, status: 'PENDING' } };
  if (toolName === 'getQuestionnaireAnswers')
    return { id: await questionnaireAnswered(host, token, organizationId, ids) };
  if (toolName === 'remindQuestionnaire')
    return { id: (await questionnaireSent(host, token, organizationId, ids)).id };
  if (toolName === 'draftVendorAssessment')
    return { questionnaire_id: await questionnaireAnswered(host, token, organizationId, ids) };
  if (toolName === 'listDocumentVersions') return { document_id: ids.document };
  if (toolName === 'getDocumentInForce') return { document_id: ids.document, on: '2026-06-30' };
  if (toolName === 'approveDocument')
    return { id: await documentToApprove(host, token, organizationId, ids) };
  // A document of its own: a second request for the same version and people asks nobody new.
  if (toolName === 'requestAcknowledgements') {
    const added = await ok(host, token, 'addDocument', {
      organization_id: organizationId,
      title: 'Policy everyone acknowledges',
      content: 'Read me.',
    });
    return {
      document_id: (added.document as { id: string }).id,
      version: 1,
      audience: 'ALL',
      due_date: '2026-12-31',
    };
  }
  if (toolName === 'listAcknowledgements')
    return { organization_id: organizationId, filter: { status: 'PENDING' } };
  if (toolName === 'acknowledgeDocument')
    return {
      document_id: (await documentToAcknowledge(host, token, organizationId, ids)).document_id,
      version: 1,
    };
  if (toolName === 'sendAcknowledgementReminders')
    return { request_id: (await documentToAcknowledge(host, token, organizationId, ids)).request_id };
  if (toolName === 'rejectDocument')
    return {
      id: await documentToApprove(host, token, organizationId, ids),
      comment: 'Section 2 lacks the review period.',
    };
  // A framework of its own whose one requirement has its justification: publishing refuses a row without one.
  if (toolName === 'publishStatementOfApplicability')
    return {
      framework_id: await justifiedFramework(host, token, organizationId),
      approver_ids: [ids.person],
    };
  if (toolName === 'publishRiskRegister' || toolName === 'publishRiskTreatmentPlan')
    return { organization_id: organizationId, owner_id: ids.person, approver_ids: [ids.person] };
  const link = LINKS[toolName];
  if (link) return { [`${link.owner}_id`]: ids[link.owner], [`${link.target}_id`]: ids[link.target] };
  for (const spec of REGISTER_SPECS) {
    if (toolName === `list${spec.nounPlural}`) return { organization_id: organizationId };
    if (toolName === `get${spec.noun}`) return { id: ids[spec.kind] };
    if (toolName === `add${spec.noun}`) return exampleArguments(spec, organizationId, ids);
    if (toolName === `update${spec.noun}`) return { id: ids[spec.kind], ...UPDATE_SAMPLE[spec.kind] };
    if (toolName === `delete${spec.noun}`) {
      const added = await ok(host, token, `add${spec.noun}`, exampleArguments(spec, organizationId, ids));
      return { id: (added[spec.key] as { id: string }).id };
    }
  }
  throw new Error(`No sample arguments for ${toolName}: add a case to test/contract/samples.ts`);
}

/** The document type each publish tool writes a version of. */
const PUBLISHED_TYPES: Record<string, string> = {
  publishStatementOfApplicability: 'STATEMENT_OF_APPLICABILITY',
  publishRiskRegister: 'RISK_REGISTER',
  publishRiskTreatmentPlan: 'RISK_TREATMENT_PLAN',
};

/**
 * What a successful answer must contain, beyond matching the output schema: the record asked for, the fields
 * written, the organization listed. Returns a list of mismatches (empty = fine).
 */
export function answerMismatches(
  toolName: string,
  args: Record<string, unknown>,
  answer: Record<string, unknown>,
  organizationId: string,
  ids: RecordIds,
): string[] {
  const problems: string[] = [];
  const expectEqual = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  };
  if (toolName === 'listOrganizations') {
    const listed = (answer.organizations as { id: string }[]).map((organization) => organization.id);
    if (!listed.includes(organizationId)) problems.push(`organizations: ${organizationId} missing`);
    return problems;
  }
  if (toolName === 'getOrganization') {
    expectEqual('organization.id', (answer.organization as { id: string }).id, organizationId);
    return problems;
  }
  if (toolName === 'findRecords') {
    // The organization holds more records than a page shows (other tests add them): each kind's are its own.
    const matches = answer.matches as { kind: string; total_count: number; records: { id: string }[] }[];
    if (!matches.some((match) => match.kind === 'risk')) problems.push('findRecords: no risk found');
    for (const match of matches) {
      const prefix = `${specOf(match.kind).prefix}_`;
      if (match.records.some((record) => !record.id.startsWith(prefix)))
        problems.push(`findRecords: a ${match.kind} without the ${prefix} prefix`);
      if (match.total_count < match.records.length) problems.push(`findRecords: ${match.kind} total_count`);
    }
    return problems;
  }
  if (toolName === 'findTools') {
    const found = (answer.tools as { name: string; call_with: string }[])[0];
    expectEqual('first tool found', found?.name, 'getStatementOfApplicability');
    expectEqual('its call tool', found?.call_with, 'callReadTool');
    return problems;
  }
  if (toolName === 'callReadTool') {
    if (!(answer.risks as { id: string }[]).some((risk) => risk.id === ids.risk))
      problems.push('callReadTool(listRisks): the seeded risk missing');
    return problems;
  }
  if (toolName === 'callWriteTool') {
    const risk = answer.risk as Record<string, unknown>;
    expectEqual('risk.id', risk.id, ids.risk);
    expectEqual('risk.note', risk.note, UPDATE_SAMPLE.risk.note);
    return problems;
  }
  if (toolName === 'callDestructiveTool') {
    expectEqual(
      'deleted',
      { id: answer.id, deleted: answer.deleted },
      {
        id: (args.arguments as { id: string }).id,
        deleted: true,
      },
    );
    return problems;
  }
  if (toolName === 'proposeWrite') {
    expectEqual('proposed', answer.proposed, true);
    const proposal = answer.proposal as { tool: string; status: string; organization_id: string };
    expectEqual(
      'proposal',
      [proposal.tool, proposal.status, proposal.organization_id],
      ['addVendor', 'PENDING', organizationId],
    );
    return problems;
  }
  if (toolName === 'getProposal') {
    const proposal = answer.proposal as { id: string; action: string; record_id: string };
    expectEqual(
      'proposal',
      [proposal.id, proposal.action, proposal.record_id],
      [args.id, 'update', ids.risk],
    );
    return problems;
  }
  if (toolName === 'listProposals') {
    const listed = answer.proposals as { organization_id: string }[];
    if (listed.some((item) => item.organization_id !== organizationId))
      problems.push('a proposal of another org');
    return problems;
  }
  if (toolName === 'getComplianceSummary') {
    expectEqual('organization_id', answer.organization_id, organizationId);
    return problems;
  }
  if (toolName === 'getRiskHeatMap') {
    const cells = (answer.inherent as { count: number }[]).reduce((sum, cell) => sum + cell.count, 0);
    expectEqual('open_risks', answer.open_risks, cells);
    return problems;
  }
  if (toolName === 'markReviewed') {
    expectEqual('id', answer.id, args.id);
    expectEqual('last_review_note', answer.last_review_note, args.note);
    return problems;
  }
  if (toolName === 'listMembers') {
    const members = answer.members as { organization_id?: string; user_id?: string; role?: string }[];
    if (!Array.isArray(members) || members.length === 0) problems.push('members: the owner missing');
    return problems;
  }
  if (toolName === 'getOrganizationSettings' || toolName === 'updateOrganizationSettings') {
    const settings = answer.settings as { time_zone: string; incident_regimes: string[] };
    if (toolName === 'updateOrganizationSettings') {
      expectEqual('settings.time_zone', settings.time_zone, args.time_zone);
      expectEqual('settings.incident_regimes', settings.incident_regimes, args.incident_regimes);
    } else if (typeof settings.time_zone !== 'string' || !Array.isArray(settings.incident_regimes))
      problems.push('settings: time_zone and incident_regimes expected');
    return problems;
  }
  if (toolName === 'gatherManagementReviewInputs') {
    expectEqual('organization_id', answer.organization_id, organizationId);
    expectEqual('period', answer.period, { from: args.period_from, to: args.period_to });
    // The seeded nonconformity is open (its example has no status): at least one counted.
    const open = answer.nonconformities_open as { count: number; ids: string[] };
    if (open.count < 1 || open.ids.length > open.count) problems.push('nonconformities_open: count and ids');
    return problems;
  }
  if (toolName === 'myWork') {
    const items = answer.items as { organization_id: string }[];
    if (items.some((item) => item.organization_id !== organizationId))
      problems.push('an item of another org');
    return problems;
  }
  if (toolName === 'listChanges') {
    const changes = answer.changes as { record_id: string; organization_id: string; action: string }[];
    expectEqual('first change of the seeded vendor', changes.at(-1)?.action, 'add');
    if (
      changes.some((change) => change.record_id !== ids.vendor || change.organization_id !== organizationId)
    )
      problems.push('a change of another record or organization');
    return problems;
  }
  if (toolName === 'recordAuditChecklistResult' || toolName === 'listAuditChecklist') {
    const items =
      toolName === 'listAuditChecklist'
        ? (answer.items as { requirement_id: string }[])
        : [answer.item as { requirement_id: string; result: string; notes: string }];
    if (!items.some((item) => item.requirement_id === ids.requirement))
      problems.push('items: the seeded requirement in scope missing');
    if (toolName === 'recordAuditChecklistResult') {
      expectEqual('item.result', (answer.item as { result: string }).result, 'CONFORMING');
      expectEqual('item.notes', (answer.item as { notes: string }).notes, args.notes);
    }
    return problems;
  }
  if (
    [
      'getStatementOfApplicability',
      'getFrameworkCoverage',
      'importFrameworkCatalog',
      'getAuditProgramme',
    ].includes(toolName)
  ) {
    expectEqual('framework.id', (answer.framework as { id: string }).id, ids.framework);
    if (toolName === 'importFrameworkCatalog') {
      // Its two entries are new; the framework's own requirements (more as other samples add some) are not in it.
      const counts = answer.counts as { created: number; updated: number; removed: number };
      expectEqual('counts.created', counts.created, 2);
      expectEqual('counts.updated', counts.updated, 0);
      expectEqual('dry_run', answer.dry_run, true);
      if (counts.removed < 1) problems.push('counts.removed: the seeded requirement is not in the catalog');
    }
    if (toolName === 'getStatementOfApplicability') {
      const listed = (answer.requirements as { id: string }[]).map((row) => row.id);
      if (!listed.includes(ids.requirement)) problems.push('requirements: seeded requirement missing');
    }
    return problems;
  }
  if (toolName === 'listCatalogs') {
    const catalogs = answer.catalogs as { key: string; adopted: unknown }[];
    expectEqual('first catalog', catalogs[0]?.key, 'iso-27001-2022');
    expectEqual('catalogs', catalogs.length, 8);
    if (catalogs.some((item) => item.adopted !== null)) problems.push('a catalog adopted by the sample org');
    return problems;
  }
  if (toolName === 'listCrosswalkMappings') {
    const pairs = (answer.mappings as { to: { reference: string }; relationship: string }[]).map((pair) => [
      pair.to.reference,
      pair.relationship,
    ]);
    expectEqual('mappings', pairs, [
      ['CC6.1', 'subset'],
      ['CC6.6', 'intersects'],
    ]);
    return problems;
  }
  if (toolName === 'proposeMappings') {
    expectEqual('answer', answer, { created: 0, pending: 0, dry_run: true });
    return problems;
  }
  if (toolName === 'listMappingProposals') {
    expectEqual('proposals', answer.proposals, []);
    return problems;
  }
  if (toolName === 'acceptMappingProposals') {
    expectEqual('accepted', [answer.accepted, answer.linked, answer.skipped_count], [0, 0, 0]);
    return problems;
  }
  if (toolName === 'declineMappingProposals') {
    expectEqual('rejected', [answer.rejected, answer.skipped_count], [0, 0]);
    return problems;
  }
  if (toolName === 'importRecords') {
    expectEqual('counts', answer.counts, {
      rows: 1,
      created: 1,
      updated: 0,
      unchanged: 0,
      refused: 0,
      people_created: 0,
      warnings: 0,
    });
    expectEqual('written', answer.written, false);
    return problems;
  }
  if (toolName === 'listDocumentVersions') {
    const versions = answer.versions as { document_id: string; number: number }[];
    expectEqual(
      'versions',
      versions.map((version) => [version.document_id, version.number]),
      [[ids.document, 1]],
    );
    return problems;
  }
  if (toolName === 'getDocumentInForce') {
    expectEqual('version', answer.version, null);
    return problems;
  }
  const published = PUBLISHED_TYPES[toolName];
  if (published) {
    const document = answer.document as { type: string; status: string; source: string | null };
    const version = answer.version as { status: string; file_id: string | null; data_file_id: string | null };
    expectEqual('document', [document.type, document.status], [published, 'IN_REVIEW']);
    expectEqual('version', version.status, 'IN_REVIEW');
    if (!document.source) problems.push('document.source: not generated');
    if (!version.file_id?.startsWith('fil_')) problems.push('version.file_id: no PDF');
    if (!version.data_file_id?.startsWith('fil_')) problems.push('version.data_file_id: no JSON copy');
    return problems;
  }
  if (toolName.endsWith('QuestionnaireTemplate') || toolName === 'listQuestionnaireTemplates') {
    const templates =
      toolName === 'listQuestionnaireTemplates'
        ? (answer.questionnaire_templates as { organization_id: string }[])
        : [answer.questionnaire_template as { organization_id: string }];
    for (const template of templates)
      expectEqual('organization_id', template.organization_id, organizationId);
    const template = answer.questionnaire_template as
      | { id: string; name: string; questions: { key: string; weight: number }[] }
      | undefined;
    if (toolName === 'addQuestionnaireTemplate')
      expectEqual(
        'questions',
        template?.questions.map((question) => [question.key, question.weight]),
        [
          ['mfa', 1],
          ['notice', 2],
        ],
      );
    if (toolName === 'getQuestionnaireTemplate' || toolName === 'addStarterQuestionnaireTemplate')
      expectEqual('questions', template?.questions.length, STARTER_QUESTIONS.length);
    if (toolName === 'updateQuestionnaireTemplate')
      expectEqual('template', [template?.id, template?.name], [args.id, 'Renamed by the contract']);
    return problems;
  }
  if (toolName === 'listVendorQuestionnaires') {
    const rows = answer.vendor_questionnaires as { vendor_id: string; status: string }[];
    for (const row of rows)
      expectEqual('questionnaire', [row.vendor_id, row.status], [ids.vendor, 'PENDING']);
    return problems;
  }
  // The contract's answers are all acceptable: every weight earned.
  if (toolName === 'getQuestionnaireAnswers') {
    const questionnaire = answer.vendor_questionnaire as { status: string; score: number; vendor_id: string };
    expectEqual(
      'questionnaire',
      [questionnaire.status, questionnaire.score, questionnaire.vendor_id],
      ['ANSWERED', 100, ids.vendor],
    );
    return problems;
  }
  if (toolName === 'draftVendorAssessment') {
    const proposed = answer.proposed as { result: string; vendor_id: string };
    expectEqual(
      'proposal',
      [proposed.result, proposed.vendor_id, answer.score],
      ['APPROVED', ids.vendor, 100],
    );
    return problems;
  }
  if (toolName === 'updateTrustPage' || toolName === 'getTrustPage') {
    const page = answer.trust_page as { organization_id: string; slug: string | null };
    expectEqual('trust_page.organization_id', page.organization_id, organizationId);
    if (toolName === 'updateTrustPage')
      expectEqual('trust_page.slug', page.slug, trustSlugOf(organizationId));
    return problems;
  }
  if (toolName === 'setTrustPageItem') {
    const items = (answer.trust_page as { items: { record_id: string; access: string }[] }).items;
    if (!items.some((item) => item.record_id === ids.framework && item.access === 'PUBLIC'))
      problems.push('trust_page.items: the framework is not PUBLIC');
    return problems;
  }
  if (toolName === 'listTrustAccessRequests') {
    for (const row of answer.trust_access_requests as { organization_id: string; status: string }[])
      expectEqual('trust_access_request', [row.organization_id, row.status], [organizationId, 'PENDING']);
    return problems;
  }
  if (toolName === 'decideTrustAccessRequest') {
    const slug = trustSlugOf(organizationId);
    if (!new RegExp(`^/trust/${slug}/download/[A-Za-z0-9_-]{43}$`).test(String(answer.link_path)))
      problems.push('link_path: no download link');
    return problems;
  }
  if (toolName === 'sendVendorQuestionnaire' || toolName === 'remindQuestionnaire') {
    if (!/^\/q\/[A-Za-z0-9_-]{43}$/.test(String(answer.link_path))) problems.push('link_path: no /q/ link');
    return problems;
  }
  if (toolName === 'requestAcknowledgements') {
    const request = answer.request as { document_id: string; version: number; audience: string };
    expectEqual(
      'request',
      [request.document_id, request.version, request.audience],
      [args.document_id, 1, 'ALL'],
    );
    const links = answer.links as { person_id: string; link_path: string }[];
    expectEqual('one link per person asked', links.length, answer.requested);
    if (links.some((link) => !link.person_id.startsWith('per_') || !link.link_path.startsWith('/ack/')))
      problems.push('links: a person id or /ack/ path missing');
    return problems;
  }
  if (toolName === 'listAcknowledgements') {
    const listed = answer.acknowledgements as { status: string }[];
    if (listed.some((item) => item.status !== 'PENDING')) problems.push('an acknowledged one under PENDING');
    return problems;
  }
  if (toolName === 'acknowledgeDocument') {
    const [acknowledged] = answer.acknowledgements as {
      document_id: string;
      status: string;
      method: string;
    }[];
    expectEqual(
      'acknowledgement',
      [acknowledged?.document_id, acknowledged?.status, acknowledged?.method],
      [args.document_id, 'ACKNOWLEDGED', 'TOKEN'],
    );
    return problems;
  }
  if (toolName === 'sendAcknowledgementReminders') {
    expectEqual('reminded', answer.reminded, 1);
    expectEqual('links', (answer.links as unknown[]).length, 1);
    return problems;
  }
  if (toolName === 'approveDocument') {
    const document = answer.document as { id: string; status: string };
    const version = answer.version as { document_id: string; status: string; approved_by_id: string };
    expectEqual('document', [document.id, document.status], [args.id, 'APPROVED']);
    expectEqual('version', [version.document_id, version.status], [args.id, 'APPROVED']);
    if (!version.approved_by_id?.startsWith('per_')) problems.push('version.approved_by_id: no person');
    expectEqual('approvals', answer.approvals, { given: 1, required: 1 });
    return problems;
  }
  if (toolName === 'rejectDocument') {
    const document = answer.document as { id: string; status: string };
    const version = answer.version as { document_id: string; status: string };
    expectEqual('document', [document.id, document.status], [args.id, 'DRAFT']);
    expectEqual('version', [version.document_id, version.status], [args.id, 'DRAFT']);
    return problems;
  }
  const link = LINKS[toolName];
  if (link) {
    expectEqual(`${link.owner}_id`, answer[`${link.owner}_id`], ids[link.owner]);
    const linked = (answer[link.list] as string[]).includes(ids[link.target]);
    expectEqual(`${link.target} linked`, linked, link.linking);
    return problems;
  }
  for (const spec of REGISTER_SPECS) {
    const record = answer[spec.key] as Record<string, unknown> | undefined;
    if (toolName === `list${spec.nounPlural}`) {
      const listed = (answer[spec.listKey] as { id: string; organization_id: string }[]) ?? [];
      if (!listed.some((item) => item.id === ids[spec.kind]))
        problems.push(`${spec.listKey}: seeded record missing`);
      if (listed.some((item) => item.organization_id !== organizationId))
        problems.push('a record of another org');
      return problems;
    }
    if (toolName === `get${spec.noun}` || toolName === `delete${spec.noun}`) {
      expectEqual(`${spec.key}.id`, record?.id ?? answer.id, args.id);
      return problems;
    }
    if (toolName === `add${spec.noun}`) {
      expectEqual(`${spec.key}.organization_id`, record?.organization_id, organizationId);
      for (const [field, value] of Object.entries(args)) {
        if (field in (record ?? {}) && typeof value === 'string')
          expectEqual(`${spec.key}.${field}`, record?.[field], value);
      }
      return problems;
    }
    if (toolName === `update${spec.noun}`) {
      expectEqual(`${spec.key}.id`, record?.id, args.id);
      for (const [field, value] of Object.entries(UPDATE_SAMPLE[spec.kind])) {
        expectEqual(`${spec.key}.${field}`, record?.[field], value);
      }
      return problems;
    }
  }
  problems.push(`no expectations for ${toolName}: add a case to test/contract/samples.ts`);
  return problems;
}
