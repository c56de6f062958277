// The chat views (MCP Apps extension, io.modelcontextprotocol/ui): ui:// resources a host renders in a sandboxed
// frame beside a tool's result. Each holds no data: it renders the result the host hands it, and may ask the host to
// call the read tools it declares. Hosts without the extension read the same result as text (nothing changes there).
import type { Tool } from '../tools/types.ts';
import { coverageView } from './coverage.ts';
import { heatMapView } from './heat-map.ts';
import { myWorkView } from './my-work.ts';
import { viewDocument } from './page.ts';
import { viewRuntime } from './runtime.ts';
import type { ChatViewSpec } from './spec.ts';
import { statementView } from './statement.ts';

/** The extension's id (capabilities) and its resource MIME type, as the extension's SDK spells them. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

export const CHAT_VIEWS: readonly ChatViewSpec[] = [heatMapView, statementView, coverageView, myWorkView];

for (const view of CHAT_VIEWS) {
  for (const called of [view.tool, ...view.calls])
    if (called.scope !== 'read')
      throw new Error(`Chat view ${view.name} names ${called.name}, not a read tool`);
}

/** The resource's `_meta.ui`: no network origin of any kind, a border from the host. */
const VIEW_UI_META = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

const viewOfTool = new Map<Tool, ChatViewSpec>(CHAT_VIEWS.map((view) => [view.tool, view]));

/**
 * A tool's `_meta` in tools/list when it has a view, else undefined. Only the stable spelling `ui.resourceUri`: hosts
 * read it first, and the draft's flat `ui/resourceUri` would cost every connection tokens for hosts of the draft.
 */
export function toolViewMeta(tool: Tool): Record<string, unknown> | undefined {
  const view = viewOfTool.get(tool);
  return view ? { ui: { resourceUri: view.uri } } : undefined;
}

export type ListedViewResource = {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  _meta: { ui: typeof VIEW_UI_META };
};

/** resources/list: every view (they hold no data, so every connection lists them all). */
export function listedViewResources(): ListedViewResource[] {
  return CHAT_VIEWS.map((view) => ({
    uri: view.uri,
    name: view.name,
    title: view.title,
    description: view.description,
    mimeType: APP_MIME_TYPE,
    _meta: { ui: VIEW_UI_META },
  }));
}

export type ReadViewResource = {
  contents: { uri: string; mimeType: string; text: string; _meta: { ui: typeof VIEW_UI_META } }[];
};

const documents = new Map<string, Promise<string>>();

function documentOf(view: ChatViewSpec): Promise<string> {
  const script = `${viewRuntime(
    `compliance-mcp-${view.name}`,
    '1.0.0',
    view.calls.map((tool) => tool.name),
  )}\n${view.script}`;
  return viewDocument(view.title, script);
}

/** resources/read of a view's uri; null for any other uri. */
export async function readViewResource(uri: string): Promise<ReadViewResource | null> {
  const view = CHAT_VIEWS.find((item) => item.uri === uri);
  if (!view) return null;
  let document = documents.get(view.uri);
  if (!document) {
    document = documentOf(view);
    documents.set(view.uri, document);
  }
  return {
    contents: [{ uri: view.uri, mimeType: APP_MIME_TYPE, text: await document, _meta: { ui: VIEW_UI_META } }],
  };
}

export type { ChatViewSpec } from './spec.ts';
