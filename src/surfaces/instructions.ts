// The server instructions of a connection, generated from what it lists: how to start, how to reach the tools it does
// not list, the two confusions assistants hit, and the rules every tool shares.
import { ID_PREFIXES } from '../ids.ts';
import { CALL_CLASSES, FIND_TOOLS } from '../tools/discovery.ts';
import type { ConnectionListing } from './connection.ts';

const ID_KIND_LABELS: Record<string, string> = { token: 'API token', call: 'tool call' };

/** Every id prefix a client meets, with its kind ("rsk_ risk"): tools/list leaves id formats out of descriptions. */
const ID_KINDS = Object.entries(ID_PREFIXES)
  .filter(([kind]) => !kind.startsWith('oauth_'))
  .map(([kind, prefix]) => `${prefix}_ ${ID_KIND_LABELS[kind] ?? kind.replace('_', ' ')}`)
  .join(', ');

/**
 * A framework's controls against the organization's, a person against an account: the words that send assistants
 * to the wrong tool, each with the tools that find it.
 */
export const CONFUSIONS =
  'Two words mislead. A framework\'s "controls" (ISO 27001 Annex A, SOC 2 criteria) are requirements (listRequirements, toolset frameworks); the organization\'s own controls are measures (listMeasures), linked to the requirements they meet and the risks they treat. A person (per_...) is an entry of the people register, the one who owns records: every owner_id takes a person, found with listPeople (filter.query: a name or an email) or findRecords, added with addPerson. An account (usr_...) is who signs in, with a role in each organization (listOrganizations shows yours): it is not a person, and no tool lists accounts; myWork finds your work through the person with your email.';

/** What every tool shares, said once here instead of in each tool (tools/list leaves these descriptions out). */
export const SHARED_RULES = [
  `Ids carry their kind's prefix: ${ID_KINDS}. \`id\` is the tool's own kind (getRisk: rsk_...); an argument named after a kind takes its ids (measure_id: msr_..., vendor_ids: ven_...); owner_id and every *_owner_id is a person (per_...).`,
  "Every record has id, organization_id, created_at and updated_at, and the fields its kind's get tool lists (getRisk's risk); list, add and update tools return the same records.",
  'Lists filter on the server (`filter`: all given filters must match; an enum filter takes a list, any of its values matches; query is case-insensitive), sort with order_by {field, direction ASC or DESC} (default created_at DESC) and page: size 1..100 (default 20); pass next_cursor back as cursor until it is null; total_count counts the matches up to 1000, 100 with filter.query (total_count_capped: more); page_shortened: fewer than size, to keep a result within about 20,000 tokens.',
  'null means "not given" for every argument (leave it out or send null). Enum values are upper case, as listed. Updates change only the fields given, with the values and bounds of the add tool (null leaves a field as it is); `clear` lists the fields to empty; expected_updated_at (the updated_at you read) refuses the change, as conflict, if the record changed since.',
  'A failed call is a result with isError and structuredContent.error {code, message, details}: fix the arguments and retry. Delete tools cannot be undone: confirm with the user first.',
].join(' ');

const list = (names: string[]) => names.join(', ');

/** The instructions of a connection: what it lists, how to reach the rest, the confusions, the shared rules. */
export function instructionsFor(listing: ConnectionListing): string {
  const callTools = Object.values(CALL_CLASSES)
    .filter((item) => !listing.readOnly || item.annotations.readOnlyHint)
    .map((item) => item.name);
  const listed = listing.picked
    ? `These definitions are the tools asked for by name: ${list(listing.tools.map((tool) => tool.name))}.`
    : listing.toolsets.length > 0
      ? `This connection lists the core and the toolsets ${list(listing.toolsets)}.`
      : 'This connection lists the core: organizations, the summary, my work, people, findRecords and the discovery tools.';
  const unlisted = [...listing.leftOut, ...listing.others];
  const discovers = listing.tools.some((tool) => tool.name === FIND_TOOLS);
  const reach = !discovers
    ? ''
    : unlisted.length > 0
      ? `Every other tool (toolsets ${list(unlisted)}) is one step away: findTools with the task in a few words (or a toolset, or exact names) returns the tools to use with their input schemas; run one with the call tool findTools names (${list(callTools)}), {name, arguments}: the same checks, result and errors as calling it directly.`
      : 'findTools returns any tool with its input schema.';
  const leftOut =
    listing.leftOut.length > 0
      ? ` Asked for but not listed, to keep the tool definitions within ${listing.budget.toLocaleString('en')} tokens: ${list(listing.leftOut)}.`
      : '';
  const readOnly = listing.readOnly
    ? ' This connection is read-only: it lists and runs read tools only.'
    : '';
  return [
    'Compliance registers of the organizations this token can access. Start with listOrganizations to get an organization_id (org_...); getComplianceSummary gives an overview, findRecords finds a record of any kind by its text.',
    `${listed} ${reach}${leftOut}${readOnly}`,
    CONFUSIONS,
    SHARED_RULES,
  ].join(' ');
}
