// Questionnaire links: one random secret per questionnaire sent, only its SHA-256 kept. A link grants reading the
// questions (with the vendor's name and the due date) and answering them once, nothing else; it ends when used or
// when it expires, and a reminder's fresh link replaces it.
import { and, eq, gt, isNull } from 'drizzle-orm';
import { constantTimeEqual, sha256Hex } from '../../auth/crypto.ts';
import type { Db } from '../../db/client.ts';
import { vendorQuestionnaires, vendors } from '../../db/schema.ts';
import { isLinkSecretShape, type PublicLinkRefusal } from '../acknowledgements/links.ts';
import { type Answer, type Question, scoreOf } from './questions.ts';

/** The path a link opens; the public pages (src/web/public/) serve it. */
export const QUESTIONNAIRE_LINK_PREFIX = '/q/';

export function questionnaireLinkPath(secret: string): string {
  return `${QUESTIONNAIRE_LINK_PREFIX}${secret}`;
}

/** What a questionnaire link grants to read: the vendor's name, the questions and the due date. */
export interface QuestionnaireGrant {
  questionnaireId: string;
  organizationId: string;
  /** When the link stops working (ISO time). */
  linkExpiresAt: string;
  secretHash: string;
  vendorName: string;
  title: string;
  questions: Question[];
  dueDate: string;
}

/** The grant of `secret` if the link can be used now, or why not. */
export async function findQuestionnaireLink(
  db: Db,
  secret: string,
  now: Date,
): Promise<{ grant: QuestionnaireGrant } | { refusal: PublicLinkRefusal }> {
  if (!isLinkSecretShape(secret)) return { refusal: 'unknown' };
  const hash = await sha256Hex(secret);
  const [row] = await db
    .select({
      id: vendorQuestionnaires.id,
      organization_id: vendorQuestionnaires.organization_id,
      secret_hash: vendorQuestionnaires.secret_hash,
      answered_at: vendorQuestionnaires.answered_at,
      link_expires_at: vendorQuestionnaires.link_expires_at,
      vendor: vendors.name,
      title: vendorQuestionnaires.title,
      questions: vendorQuestionnaires.questions,
      due_date: vendorQuestionnaires.due_date,
    })
    .from(vendorQuestionnaires)
    .innerJoin(
      vendors,
      and(
        eq(vendors.id, vendorQuestionnaires.vendor_id),
        eq(vendors.organization_id, vendorQuestionnaires.organization_id),
      ),
    )
    .where(eq(vendorQuestionnaires.secret_hash, hash))
    .limit(1);
  // The index found the row by its hash; the comparison that grants takes the same time wherever they differ.
  if (!row?.secret_hash || !constantTimeEqual(row.secret_hash, hash)) return { refusal: 'unknown' };
  if (row.answered_at) return { refusal: 'used' };
  if (row.link_expires_at <= now.toISOString()) return { refusal: 'expired' };
  return {
    grant: {
      questionnaireId: row.id,
      organizationId: row.organization_id,
      linkExpiresAt: row.link_expires_at,
      secretHash: hash,
      vendorName: row.vendor,
      title: row.title,
      questions: row.questions as Question[],
      dueDate: row.due_date,
    },
  };
}

/**
 * Stores the answers and their score through the link, in one statement only an unused, unexpired link passes: once
 * stored they are never changed (no tool writes them).
 */
export async function answerByLink(
  db: Db,
  grant: QuestionnaireGrant,
  answers: Answer[],
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const done = await db
    .update(vendorQuestionnaires)
    .set({ answers, score: scoreOf(grant.questions, answers), answered_at: at })
    .where(
      and(
        eq(vendorQuestionnaires.id, grant.questionnaireId),
        eq(vendorQuestionnaires.secret_hash, grant.secretHash),
        isNull(vendorQuestionnaires.answered_at),
        gt(vendorQuestionnaires.link_expires_at, at),
      ),
    )
    .returning({ id: vendorQuestionnaires.id });
  return done.length > 0;
}
