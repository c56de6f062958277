// The tool map: every tool of the service, built from data. The surfaces only iterate it; other code holds handles.
import { accessReviewEntrySpec, accessReviewSpec } from './access-reviews.ts';
import { acknowledgementTools } from './acknowledgements/tools.ts';
import { assetSpec } from './assets.ts';
import { auditChecklistTools } from './audit-checklist.ts';
import { auditProgrammeTool } from './audit-programme.ts';
import { auditSpec } from './audits.ts';
import { listCatalogsTool, listCrosswalkMappingsTool } from './catalogs/catalog-tools.ts';
import { importCatalogTool } from './catalogs/import-tool.ts';
import {
  acceptMappingProposalsTool,
  declineMappingProposalsTool,
  listMappingProposalsTool,
  proposeMappingsTool,
} from './catalogs/proposal-tools.ts';
import { listChangesTool } from './changes.ts';
import { continualImprovementSpec } from './continual-improvements.ts';
import { controlTestSpec } from './control-tests.ts';
import { controlledOutputTools } from './controlled-outputs.ts';
import { frameworkCoverageTool, statementOfApplicabilityTool } from './coverage.ts';
import { dataClassificationSpec } from './data-classifications.ts';
import { discoveryTools } from './discovery.ts';
import { documentVersionTools } from './document-versions.ts';
import { documentSpec } from './documents.ts';
import { evidenceSpec } from './evidence.ts';
import { findRecordsTool } from './find-records.ts';
import { frameworkSpec } from './frameworks.ts';
import { riskHeatMapTool } from './heat-map.ts';
import { importRecordsTool } from './imports/tool.ts';
import { incidentActionSpec, incidentNotificationSpec } from './incidents/incident-records.ts';
import { incidentSpec } from './incidents/incidents.ts';
import { gatherManagementReviewInputsTool, managementReviewSpec } from './management-reviews.ts';
import { markReviewedTool } from './mark-reviewed.ts';
import { measureSpec } from './measures.ts';
import { listMembersTool } from './members.ts';
import { myWorkTool } from './my-work.ts';
import { nonconformitySpec } from './nonconformities.ts';
import { obligationSpec } from './obligations.ts';
import { organizationTools } from './organizations.ts';
import { personSpec } from './people.ts';
import { dataSubjectRequestSpec } from './privacy/data-subject-requests.ts';
import { dpiaSpec } from './privacy/dpias.ts';
import { processingActivitySpec } from './privacy/processing-activities.ts';
import { getProposalTool, listProposalsTool, proposeWriteTool } from './proposals.ts';
import {
  addQuestionnaireTemplate,
  addStarterQuestionnaireTemplate,
  getQuestionnaireTemplate,
  listQuestionnaireTemplates,
  updateQuestionnaireTemplate,
} from './questionnaires/templates.ts';
import { vendorQuestionnaireTools } from './questionnaires/tools.ts';
import { buildRegisters, type Registers, type RegisterTools } from './registers/builder.ts';
import type { RegisterKind, RegisterSpec } from './registers/spec.ts';
import { requirementSpec } from './requirements.ts';
import { riskAcceptanceSpec } from './risk-acceptances.ts';
import { riskSpec } from './risks.ts';
import { settingsTools } from './settings.ts';
import { summaryTool } from './summary.ts';
import { taskSpec } from './tasks.ts';
import { TRUST_PAGE_TOOLS } from './trust-page/tools.ts';
import type { Tool } from './types.ts';
import { vendorAssessmentSpec } from './vendor-assessments.ts';
import { vendorSpec } from './vendors.ts';

export const REGISTER_SPECS: readonly RegisterSpec[] = [
  vendorSpec,
  vendorAssessmentSpec,
  riskSpec,
  riskAcceptanceSpec,
  measureSpec,
  controlTestSpec,
  obligationSpec,
  personSpec,
  frameworkSpec,
  assetSpec,
  dataClassificationSpec,
  nonconformitySpec,
  continualImprovementSpec,
  auditSpec,
  requirementSpec,
  documentSpec,
  evidenceSpec,
  taskSpec,
  incidentSpec,
  incidentActionSpec,
  incidentNotificationSpec,
  processingActivitySpec,
  dpiaSpec,
  dataSubjectRequestSpec,
  accessReviewSpec,
  accessReviewEntrySpec,
  managementReviewSpec,
];

/** Every register's tools by kind: `REGISTERS.risk.add`, `REGISTERS.vendor.list`. */
export const REGISTERS: Registers = buildRegisters(REGISTER_SPECS);

export function registerOf(kind: RegisterKind): RegisterTools {
  return REGISTERS[kind];
}

export const listChanges = listChangesTool(
  REGISTER_SPECS.map((spec) => spec.kind) as [RegisterKind, ...RegisterKind[]],
);

/** A document's versions: listDocumentVersions, getDocumentInForce, approveDocument, rejectDocument. */
export const DOCUMENT_VERSIONS = documentVersionTools(REGISTERS.document);

/** Policy acknowledgements: requestAcknowledgements, listAcknowledgements, acknowledgeDocument, reminders. */
export const ACKNOWLEDGEMENTS = acknowledgementTools(REGISTERS.document);

/** Vendor questionnaires: send through a single-use link, remind, read the answers and score, draft an assessment. */
export const VENDOR_QUESTIONNAIRES = vendorQuestionnaireTools(REGISTERS.vendor);

/** publishStatementOfApplicability, publishRiskRegister, publishRiskTreatmentPlan: generated document versions. */
export const CONTROLLED_OUTPUTS = controlledOutputTools(REGISTERS.document);

/** importRecords: a CSV into any register, all rows or none (web uploads call it too). */
export const importRecords = importRecordsTool(REGISTERS);

/** markReviewed: a review of any record of a register with review cycles. */
export const markReviewed = markReviewedTool(REGISTERS);

// Every owner is a person: finding people belongs to the core every connection lists.
REGISTERS.person.list.core = true;
REGISTERS.person.get.core = true;

/** An audit's checklist: recordAuditChecklistResult (may raise a nonconformity), listAuditChecklist. */
export const AUDIT_CHECKLIST = auditChecklistTools(REGISTERS);

/** findRecords: one text search across every register of an organization. */
export const findRecords = findRecordsTool(REGISTERS);

/** findTools and the call tools that reach every tool from any connection (docs/mcp.md). */
export const DISCOVERY = discoveryTools(() => TOOLS);

const registerTools = REGISTER_SPECS.map((spec) => REGISTERS[spec.kind]);
const allTools: Tool[] = [
  ...organizationTools,
  ...settingsTools,
  findRecords,
  DISCOVERY.findTools,
  DISCOVERY.callRead,
  DISCOVERY.callWrite,
  DISCOVERY.callDestructive,
  listMembersTool,
  ...registerTools.flatMap((register) => [
    register.list,
    register.get,
    register.add,
    register.update,
    register.delete,
  ]),
  ...registerTools.flatMap((register) => register.links.flatMap((links) => [links.link, links.unlink])),
  DOCUMENT_VERSIONS.listVersions,
  DOCUMENT_VERSIONS.inForce,
  DOCUMENT_VERSIONS.approve,
  ACKNOWLEDGEMENTS.request,
  ACKNOWLEDGEMENTS.list,
  ACKNOWLEDGEMENTS.acknowledge,
  ACKNOWLEDGEMENTS.remind,
  DOCUMENT_VERSIONS.reject,
  listQuestionnaireTemplates,
  getQuestionnaireTemplate,
  addQuestionnaireTemplate,
  updateQuestionnaireTemplate,
  addStarterQuestionnaireTemplate,
  VENDOR_QUESTIONNAIRES.send,
  VENDOR_QUESTIONNAIRES.list,
  VENDOR_QUESTIONNAIRES.get,
  VENDOR_QUESTIONNAIRES.remind,
  VENDOR_QUESTIONNAIRES.draftAssessment,
  ...TRUST_PAGE_TOOLS,
  statementOfApplicabilityTool,
  frameworkCoverageTool,
  auditProgrammeTool,
  AUDIT_CHECKLIST.record,
  AUDIT_CHECKLIST.list,
  ...CONTROLLED_OUTPUTS,
  importCatalogTool,
  listCatalogsTool,
  listCrosswalkMappingsTool,
  proposeMappingsTool,
  listMappingProposalsTool,
  acceptMappingProposalsTool,
  declineMappingProposalsTool,
  importRecords,
  summaryTool,
  riskHeatMapTool(REGISTERS.risk.records),
  listChanges,
  markReviewed,
  myWorkTool,
  gatherManagementReviewInputsTool,
  listProposalsTool,
  getProposalTool,
  proposeWriteTool(() => TOOLS),
];

export type ToolMap = ReadonlyMap<string, Tool>;

export const TOOLS: ToolMap = new Map(allTools.map((tool) => [tool.name, tool]));

if (TOOLS.size !== allTools.length) throw new Error('Duplicate tool name in the tool map');

export type { RegisterTools } from './registers/builder.ts';
export type { RegisterKind, RegisterSpec } from './registers/spec.ts';
export type { Tool, ToolContext } from './types.ts';
