// Files a vendor's contact attaches to a questionnaire's answers through its link (src/web/public/questionnaires.tsx):
// stored through the seam as every upload (the storeFile call: byte limits, the organization's quota, the content type
// sniffed, the call log), then linked to one answer by a statement only a pending, unexpired link with room passes.
// The organization reads them with the answers (getQuestionnaireAnswers). Until the answers are sent, the contact may
// remove a file through the same link (removeAttachment); once they are in, nothing changes or removes them.
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import type { Principal } from '../../auth/principal.ts';
import { type Db, selectRow } from '../../db/client.ts';
import { storedFiles, vendorQuestionnaireFiles, vendorQuestionnaires } from '../../db/schema.ts';
import type { FileRuntime } from '../../files/store.ts';
import { newId } from '../../ids.ts';
import type { QuestionnaireGrant } from './links.ts';

/** One attached file at most this large (or FILE_MAX_BYTES when smaller). */
export const QUESTIONNAIRE_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Files one questionnaire may carry. */
export const QUESTIONNAIRE_MAX_FILES = 10;
/** What one questionnaire's files may take together. */
export const QUESTIONNAIRE_FILES_MAX_BYTES = 50 * 1024 * 1024;

/** The `user_id` of a link's calls in the call log: no account acts, the link does (its token id: the questionnaire). */
export const LINK_CALLER = 'questionnaire-link';

/** Whether a call log row is a questionnaire link's upload (its token id is the questionnaire's). */
export function isLinkCall(call: { token_id: string }): boolean {
  return call.token_id.startsWith('vqn_');
}

export interface AttachmentLimits {
  /** Bytes of one file. */
  fileBytes: number;
  /** Files of one questionnaire. */
  files: number;
  /** Bytes of one questionnaire's files together. */
  totalBytes: number;
}

export function attachmentLimits(files: FileRuntime): AttachmentLimits {
  return {
    fileBytes: Math.min(files.maxBytes, QUESTIONNAIRE_FILE_MAX_BYTES),
    files: QUESTIONNAIRE_MAX_FILES,
    totalBytes: QUESTIONNAIRE_FILES_MAX_BYTES,
  };
}

export interface QuestionnaireAttachment {
  id: string;
  question_key: string;
  file_id: string;
  file_name: string;
  size: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

/** The files attached to a questionnaire, in the order they came. */
export async function attachmentsOf(db: Db, questionnaireId: string): Promise<QuestionnaireAttachment[]> {
  return db
    .select({
      id: vendorQuestionnaireFiles.id,
      question_key: vendorQuestionnaireFiles.question_key,
      file_id: vendorQuestionnaireFiles.file_id,
      file_name: storedFiles.name,
      size: storedFiles.size,
      content_type: storedFiles.content_type,
      sha256: storedFiles.sha256,
      created_at: vendorQuestionnaireFiles.created_at,
    })
    .from(vendorQuestionnaireFiles)
    .innerJoin(
      storedFiles,
      and(
        eq(storedFiles.id, vendorQuestionnaireFiles.file_id),
        eq(storedFiles.organization_id, vendorQuestionnaireFiles.organization_id),
      ),
    )
    .where(eq(vendorQuestionnaireFiles.questionnaire_id, questionnaireId))
    .orderBy(asc(vendorQuestionnaireFiles.created_at), asc(vendorQuestionnaireFiles.id));
}

/**
 * Who a link's upload goes through the seam as: the questionnaire's link, writing in its organization only the file
 * (storeFile is the one tool called with it); its uploads and calls are counted per questionnaire.
 */
export function linkUploader(grant: QuestionnaireGrant): Principal {
  return {
    tokenId: grant.questionnaireId,
    userId: LINK_CALLER,
    scope: 'read_write',
    roles: { [grant.organizationId]: 'EDITOR' },
    expiresAt: grant.linkExpiresAt,
  };
}

/**
 * Links a stored file to the answer of `questionKey`, in one statement that passes only while the link is the
 * questionnaire's current one, unanswered and unexpired, and its files stay within `limits`: an answer submitted (or
 * a reminder's new link) meanwhile, or parallel uploads past the limits, link nothing (false).
 */
export async function linkAttachment(
  db: Db,
  grant: QuestionnaireGrant,
  questionKey: string,
  file: { id: string; size: number },
  limits: AttachmentLimits,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const questionnaire = grant.questionnaireId;
  const row = {
    id: newId('vqf'),
    organization_id: grant.organizationId,
    questionnaire_id: questionnaire,
    question_key: questionKey,
    file_id: file.id,
    created_at: at,
  };
  const open = linkOpen(grant, at);
  const ofQuestionnaire = eq(vendorQuestionnaireFiles.questionnaire_id, questionnaire);
  const fewEnough = sql`(select count(*) from ${vendorQuestionnaireFiles} where ${ofQuestionnaire}) < ${limits.files}`;
  const smallEnough = sql`(select coalesce(sum(${storedFiles.size}), 0) from ${vendorQuestionnaireFiles} join ${storedFiles} on ${storedFiles.id} = ${vendorQuestionnaireFiles.file_id} where ${ofQuestionnaire}) + ${file.size} <= ${limits.totalBytes}`;
  const linked = await db
    .insert(vendorQuestionnaireFiles)
    .select(selectRow(vendorQuestionnaireFiles, row, and(open, fewEnough, smallEnough) as SQL))
    .returning({ id: vendorQuestionnaireFiles.id });
  return linked.length > 0;
}

/** The statement part that passes only while the grant's link is the questionnaire's current, unanswered, unexpired one. */
function linkOpen(grant: QuestionnaireGrant, at: string): SQL {
  return sql`exists (select 1 from ${vendorQuestionnaires} where ${and(
    eq(vendorQuestionnaires.id, grant.questionnaireId),
    eq(vendorQuestionnaires.secret_hash, grant.secretHash),
    isNull(vendorQuestionnaires.answered_at),
    gt(vendorQuestionnaires.link_expires_at, at),
  )})`;
}

/**
 * Unlinks one file of the grant's questionnaire (`attachmentId`, its `vqf_` id) in one statement that passes only
 * while the link is open (as linkAttachment), and answers the stored file it named so the caller discards it; null
 * when the id is not one of this questionnaire's files (another questionnaire's, removed already, made up) or the
 * answers were sent meanwhile: nothing is removed then.
 */
export async function unlinkAttachment(
  db: Db,
  grant: QuestionnaireGrant,
  attachmentId: string,
  now: Date,
): Promise<{ fileId: string } | null> {
  const [gone] = await db
    .delete(vendorQuestionnaireFiles)
    .where(
      and(
        eq(vendorQuestionnaireFiles.id, attachmentId),
        eq(vendorQuestionnaireFiles.questionnaire_id, grant.questionnaireId),
        eq(vendorQuestionnaireFiles.organization_id, grant.organizationId),
        linkOpen(grant, now.toISOString()),
      ),
    )
    .returning({ fileId: vendorQuestionnaireFiles.file_id });
  return gone ?? null;
}
