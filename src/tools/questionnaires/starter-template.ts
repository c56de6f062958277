// The starter questionnaire this project ships: a short first look at a vendor's security, written for this project
// (no text of a standard or of another product). An organization adds it with addStarterQuestionnaireTemplate.
import type { Question } from './questions.ts';

export const STARTER_TEMPLATE_NAME = 'Vendor security starter questionnaire';
export const STARTER_TEMPLATE_DESCRIPTION =
  'A first look at how a vendor protects our data: who can reach it, how it is encrypted, what happens when something goes wrong, and who else handles it.';

const yesNo = (key: string, topic: string, text: string, weight: number): Question => ({
  key,
  topic,
  text,
  answer_type: 'YES_NO',
  options: [],
  acceptable: ['YES'],
  weight,
});

const freeText = (key: string, topic: string, text: string): Question => ({
  key,
  topic,
  text,
  answer_type: 'TEXT',
  options: [],
  acceptable: [],
  weight: 0,
});

const ACCESS = 'Access control';
const ENCRYPTION = 'Encryption';
const INCIDENTS = 'Incident response';
const CONTINUITY = 'Business continuity';
const SUBPROCESSORS = 'Sub-processors';
const CERTIFICATIONS = 'Certifications';

export const STARTER_QUESTIONS: readonly Question[] = [
  yesNo(
    'mfa_for_staff',
    ACCESS,
    'Must your staff pass a second sign-in factor before they can reach systems that hold our data?',
    3,
  ),
  yesNo(
    'access_removed_on_leave',
    ACCESS,
    'When someone leaves your company or changes role, is their access to our data taken away within one working day?',
    2,
  ),
  yesNo(
    'access_reviewed',
    ACCESS,
    'Does someone check at least every six months who can reach our data, and remove access nobody needs?',
    2,
  ),
  yesNo(
    'encrypted_in_transit',
    ENCRYPTION,
    'Is our data always sent over encrypted connections, between us and you and inside your own network?',
    3,
  ),
  yesNo('encrypted_at_rest', ENCRYPTION, 'Is our data encrypted where you store it, backups included?', 3),
  {
    key: 'key_management',
    topic: ENCRYPTION,
    text: 'Who holds the keys that decrypt our stored data?',
    answer_type: 'CHOICE',
    options: [
      'A managed key service, keys rotated on a schedule',
      'Our own staff, by hand',
      'Nobody in particular',
    ],
    acceptable: ['A managed key service, keys rotated on a schedule'],
    weight: 2,
  },
  yesNo(
    'incident_plan',
    INCIDENTS,
    'Do you keep a written plan for security incidents, and have you rehearsed it in the last twelve months?',
    2,
  ),
  {
    key: 'breach_notice',
    topic: INCIDENTS,
    text: 'If our data is exposed, how soon after you find out would you tell us?',
    answer_type: 'CHOICE',
    options: ['Within 24 hours', 'Within 72 hours', 'Within a week', 'We have not decided'],
    acceptable: ['Within 24 hours', 'Within 72 hours'],
    weight: 3,
  },
  freeText(
    'incident_contact',
    INCIDENTS,
    'Whom should we contact about a security problem (name or team, email, phone)?',
  ),
  yesNo(
    'backups_tested',
    CONTINUITY,
    'Do you back up our data and check at least once a year that you can restore it?',
    2,
  ),
  yesNo(
    'continuity_plan',
    CONTINUITY,
    'Do you have a plan to keep the service running, or bring it back, if a site or a key supplier fails?',
    2,
  ),
  freeText(
    'recovery_targets',
    CONTINUITY,
    'How long could the service be down, and how much recent data could be lost, in the worst case you plan for?',
  ),
  yesNo(
    'subprocessors_listed',
    SUBPROCESSORS,
    'Do you publish or share with us the list of other companies that handle our data for you?',
    2,
  ),
  yesNo(
    'subprocessors_notice',
    SUBPROCESSORS,
    'Will you tell us before a new company starts handling our data, in time for us to object?',
    2,
  ),
  freeText(
    'subprocessor_countries',
    SUBPROCESSORS,
    'In which countries is our data stored or reached from, by you or by those companies?',
  ),
  yesNo(
    'independent_audit',
    CERTIFICATIONS,
    'Has an independent auditor examined your security in the last twelve months?',
    2,
  ),
  freeText(
    'certificates_held',
    CERTIFICATIONS,
    'Which security certifications or audit reports do you hold, and until when are they valid?',
  ),
];
