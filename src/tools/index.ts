// The tool map: every tool of the service, built from data. The surfaces only iterate it.
import { assetSpec } from './assets.ts';
import { auditSpec } from './audits.ts';
import { listChangesTool } from './changes.ts';
import { continualImprovementSpec } from './continual-improvements.ts';
import { dataClassificationSpec } from './data-classifications.ts';
import { frameworkSpec } from './frameworks.ts';
import { measureSpec } from './measures.ts';
import { nonconformitySpec } from './nonconformities.ts';
import { obligationSpec } from './obligations.ts';
import { organizationTools } from './organizations.ts';
import { personSpec } from './people.ts';
import {
  buildReferenceGraph,
  type RegisterKind,
  type RegisterSpec,
  type RegisterTable,
  registerTools,
} from './register.ts';
import { riskMeasureTools } from './risk-measures.ts';
import { riskSpec } from './risks.ts';
import { summaryTool } from './summary.ts';
import type { Tool } from './types.ts';
import { vendorSpec } from './vendors.ts';

export const REGISTER_SPECS: readonly RegisterSpec[] = [
  vendorSpec,
  riskSpec,
  measureSpec,
  obligationSpec,
  personSpec,
  frameworkSpec,
  assetSpec,
  dataClassificationSpec,
  nonconformitySpec,
  continualImprovementSpec,
  auditSpec,
];

const tablesByKind = new Map<RegisterKind, RegisterTable>(
  REGISTER_SPECS.map((spec) => [spec.kind, spec.table]),
);
const graph = buildReferenceGraph([...REGISTER_SPECS]);

function tableOf(kind: RegisterKind): RegisterTable {
  const table = tablesByKind.get(kind);
  if (!table) throw new Error(`No register for ${kind}`);
  return table;
}

const allTools: Tool[] = [
  ...organizationTools,
  ...REGISTER_SPECS.flatMap((spec) => registerTools(spec, graph, tableOf)),
  ...riskMeasureTools,
  summaryTool,
  listChangesTool(REGISTER_SPECS.map((spec) => spec.kind) as [RegisterKind, ...RegisterKind[]]),
];

export type ToolMap = ReadonlyMap<string, Tool>;

export const TOOLS: ToolMap = new Map(allTools.map((tool) => [tool.name, tool]));

if (TOOLS.size !== allTools.length) throw new Error('Duplicate tool name in the tool map');

export type { Tool, ToolContext } from './types.ts';
