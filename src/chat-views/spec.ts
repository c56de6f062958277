// What a chat view is: a ui:// resource of the MCP Apps extension, the tool whose result it shows, the read tools
// it may call through the host, and its script (run after the runtime, src/chat-views/runtime.ts).
import type { Tool } from '../tools/types.ts';

export interface ChatViewSpec {
  /** The resource's ui:// address, named in its tool's `_meta.ui.resourceUri`. */
  uri: string;
  /** Resource name (resources/list). */
  name: string;
  title: string;
  description: string;
  /** The tool whose result it renders. */
  tool: Tool;
  /** Read tools its script may call through the host (a write tool here fails at start-up). */
  calls: readonly Tool[];
  /** Its code: registers a renderer with `window.view.onResult` and builds DOM with `window.view.el`. */
  script: string;
}
