// Decisions a person takes in the web interface when the organization's setting web_only_decisions is on: approving
// a document, accepting a risk, deleting records. The history's surface says who acted where; this makes it a rule.
import { AppError } from '../errors.ts';
import type { ToolContext } from './types.ts';

/** The settings this check reads (a subset of OrganizationSettings, kept here so both modules import it freely). */
interface DecisionSettings {
  web_only_decisions: boolean;
}

/**
 * Refuses `decision` unless it comes from a person signed in to the web, when the organization requires it. `page` is
 * the web page (a path) where that person can take it.
 */
export function requirePersonInWeb(
  ctx: Pick<ToolContext, 'surface'>,
  settings: DecisionSettings,
  decision: string,
  page: string,
): void {
  if (!settings.web_only_decisions || ctx.surface === 'web') return;
  throw new AppError(
    'forbidden',
    `The organization's setting web_only_decisions requires a person signed in to the web interface for ${decision}; an API token cannot. Do it at ${page} (or an OWNER or ADMIN turns the setting off there, in Settings).`,
  );
}
