// The shape of a tool in the map: metadata, zod input/output schemas, scope and a `run` that returns plain data.
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { NO_FILES } from '../files/runtime.ts';
import type { FileRuntime } from '../files/store.ts';
import { newId } from '../ids.ts';
import type { Surface } from '../usage.ts';

export type ToolScope = 'read' | 'write';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

export interface ToolContext {
  db: Db;
  principal: Principal;
  now: () => Date;
  /** The organization the call acted in, set by the access checks; recorded in the call log. */
  organizationId: string | null;
  /** Statements the invocation seam adds to a write tool's batch (this call's log row), taking effect only where `landed` holds. */
  writeExtras(landed: SQL): BatchItem<'sqlite'>[];
  /** Where the call came in (recorded with every change it makes). */
  surface: Surface;
  /** The call's own id (`cal_...`): on its call-log row and on the change-history rows of its writes. */
  callId: string;
  /** The service's public origin (config PUBLIC_URL) when set: web links in answers are absolute with it. */
  publicUrl?: string;
  /** Set while a person's approval applies a proposal: the history rows of the write name it (src/proposals/). */
  proposalId?: string;
  /**
   * Set with proposalId: the record's updated_at the proposal was made against. A delete lands only on that version
   * (its conflict check and its write are one statement); an update gets it as expected_updated_at.
   */
  proposalBase?: string;
  /** Stored files (src/files/): receiveFile and downloadLink take this context. */
  files: FileRuntime;
  /** The service mails public links (SMTP settings and PUBLIC_URL): link tools queue mails in the outbox. */
  mailLinks?: boolean;
  /** The bytes of a file the call streams in (the upload routes' storeFile): the one argument that is not JSON. */
  upload?: ReadableStream<Uint8Array> | Uint8Array;
}

/** A `landed` for `writeExtras` placed right after the write's statement: that statement changed a row. */
export const CHANGED_A_ROW: SQL = sql`changes() > 0`;

/** For contexts outside the invocation seam (seeding, display lookups): nothing to add. */
export const NO_WRITE_EXTRAS = (): BatchItem<'sqlite'>[] => [];

/**
 * A context for running a tool outside the invocation seam (display lookups, seeding, tests): a call id of its own
 * for any history rows, and nothing added to write batches.
 */
export function contextOutsideSeam(
  db: Db,
  principal: Principal,
  now: () => Date,
  surface: Surface,
  files: FileRuntime = NO_FILES,
): ToolContext {
  return {
    db,
    principal,
    now,
    organizationId: null,
    writeExtras: NO_WRITE_EXTRAS,
    surface,
    callId: newId('cal'),
    files,
  };
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  scope: ToolScope;
  annotations: ToolAnnotations;
  input: z.ZodObject;
  output: z.ZodObject;
  /**
   * The toolset a connection chooses it by (`?toolsets=risks`): a register's tools get the register's (the
   * builder sets it), organizations and the summary `core`. A tool in no toolset fails the tool-map test.
   */
  toolset?: string;
  /**
   * Listed on every connection though it belongs to a register's toolset (listPeople, getPerson: every owner is a
   * person). The `core` toolset's tools are listed on every connection anyway.
   */
  core?: true;
  /**
   * A call tool (callReadTool, ...): the tool its input names and that tool's arguments. invokeTool then checks and
   * runs that tool in its place, so its validation, scope, call log and history are the called tool's own.
   */
  dispatch?(input: unknown): { tool: Tool; arguments: unknown; propose?: true };
  /**
   * Names a caller may send that are no argument of the tool, each with why (a derived field: computed; a link list:
   * its link tools): an unknown argument with a hint is refused with it rather than with the nearest known name.
   */
  argumentHints?: Readonly<Record<string, string>>;
  /**
   * A write that can be proposed instead of made (a `propose` token, or the organization's approval_required
   * setting): reads the target and answers the change set, checking access as the write would, writing nothing.
   */
  propose?(ctx: ToolContext, input: unknown): Promise<ProposalDraft>;
  /** Realistic arguments, shown in the OpenAPI document (not in tools/list, which stays small). */
  example?: Record<string, unknown>;
  run(ctx: ToolContext, input: unknown): Promise<Record<string, unknown>>;
  /**
   * A write's answer read again, for an idempotent retry whose first call (`callId`) committed but never stored its
   * answer (the host stopped in between). Without it such a retry is told to retry later.
   */
  answerAgain?(ctx: ToolContext, input: unknown, callId: string): Promise<Record<string, unknown>>;
}

/** A write as it would be made: where, what, and the exact change against the record's current version. */
export interface ProposalDraft {
  organizationId: string;
  kind: string;
  action: 'add' | 'update' | 'delete';
  /** The record changed or deleted; null for an add. */
  recordId: string | null;
  /** The record's updated_at when proposed; null for an add. */
  baseUpdatedAt: string | null;
  /** update: the changed fields' current values; delete: the record; add: null. */
  before: Record<string, unknown> | null;
  /** update: the changed fields' proposed values; add: the full new record; delete: null. */
  after: Record<string, unknown> | null;
}

export interface TypedTool<I extends z.ZodObject, O extends z.ZodObject>
  extends Omit<Tool, 'input' | 'output' | 'run' | 'answerAgain' | 'propose'> {
  input: I;
  output: O;
  run(ctx: ToolContext, input: z.output<I>): Promise<z.input<O>>;
  answerAgain?(ctx: ToolContext, input: z.output<I>, callId: string): Promise<z.input<O>>;
  propose?(ctx: ToolContext, input: z.output<I>): Promise<ProposalDraft>;
}

/** Erases the tool's own types for the map; `invokeTool` always parses with `input` before calling `run`. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: TypedTool<I, O>): Tool {
  return {
    ...tool,
    run: (ctx, input) => tool.run(ctx, input as z.output<I>) as Promise<Record<string, unknown>>,
    ...(tool.answerAgain && {
      answerAgain: (ctx: ToolContext, input: unknown, callId: string) =>
        tool.answerAgain?.(ctx, input as z.output<I>, callId) as Promise<Record<string, unknown>>,
    }),
    ...(tool.propose && {
      propose: (ctx: ToolContext, input: unknown) =>
        tool.propose?.(ctx, input as z.output<I>) as Promise<ProposalDraft>,
    }),
  };
}

/**
 * Record schemas (a risk, a vendor, ...) and the tool whose result spells each out: the MCP output schemas describe
 * a record kind once there and name it elsewhere, so tools/list stays small.
 */
export const RECORD_SCHEMAS = new WeakMap<object, { label: string; spelledOutIn: string }>();

/**
 * Marks (zod meta) a field of an update tool that is the add tool's field: published with its type and values but
 * without the descriptions, since the update tool says "as in addX" and tools/list describes each field once.
 */
export const SAME_AS_ADD = 'x-same-as-add';

export const READ_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const CREATE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const UPDATE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const DELETE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
