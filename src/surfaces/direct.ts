// Direct HTTP surface: POST /api/mcp/tools/<tool> and POST /api/mcp/<tool> with a JSON object of arguments.
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { ToolMap } from '../tools/index.ts';
import { IDEMPOTENCY_HEADER } from './idempotency.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';

/** The body of a direct call: a JSON object of arguments, `{}` when empty. */
export async function readJsonArguments(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return {};
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      'Send the arguments as a JSON object with Content-Type: application/json.',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError(
      'invalid_json',
      'The body is not valid JSON. Send a JSON object of arguments, e.g. {}.',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError(
      'invalid_arguments',
      'The body must be a JSON object of arguments, e.g. {"organization_id": "org_..."}.',
    );
  }
  return value;
}

/** A direct call: the tool's result, or the AppError to answer with (unknown tool, body, arguments, the run). */
export async function callDirect(
  deps: { tools: ToolMap; invoke: InvokeDeps },
  toolName: string,
  request: Request,
  principal: Principal,
  requestId: string,
): Promise<Record<string, unknown>> {
  const tool = deps.tools.get(toolName);
  if (!tool) {
    throw new AppError(
      'unknown_tool',
      `No tool named ${toolName}. GET /api/mcp/openapi.json lists the tools.`,
    );
  }
  const args = await readJsonArguments(request);
  const header = request.headers.get(IDEMPOTENCY_HEADER);
  const outcome = await invokeTool(deps.invoke, tool, args, principal, 'direct', requestId, undefined, {
    header,
  });
  if (outcome.ok) return outcome.result;
  throw outcome.error;
}
