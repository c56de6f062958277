// Direct HTTP surface: POST /api/mcp/tools/<tool> and POST /api/mcp/<tool> with a JSON object of arguments.
import type { Context } from 'hono';
import type { Principal } from '../auth/principal.ts';
import { AppError, toErrorBody } from '../errors.ts';
import type { ToolMap } from '../tools/index.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';

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

export async function handleDirectCall(
  c: Context,
  deps: { tools: ToolMap; invoke: InvokeDeps },
  toolName: string,
  principal: Principal,
  requestId: string,
): Promise<Response> {
  const tool = deps.tools.get(toolName);
  if (!tool) {
    throw new AppError(
      'unknown_tool',
      `No tool named ${toolName}. GET /api/mcp/openapi.json lists the tools.`,
    );
  }
  const args = await readJsonArguments(c.req.raw);
  const outcome = await invokeTool(deps.invoke, tool, args, principal, 'direct', requestId);
  if (outcome.ok) return c.json(outcome.result, 200);
  throw outcome.error;
}

export function errorResponse(error: AppError): Response {
  const headers = new Headers({ 'content-type': 'application/json' });
  const details = error.details as { retry_after_seconds?: number } | undefined;
  if (error.code === 'rate_limited' && details?.retry_after_seconds) {
    headers.set('retry-after', String(details.retry_after_seconds));
  }
  return new Response(JSON.stringify(toErrorBody(error)), { status: error.status, headers });
}
