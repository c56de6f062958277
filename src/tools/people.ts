// People: employees, contractors and service accounts of an organization; owners of other records.

import { people } from '../db/schema.ts';
import { caseInsensitiveEnum, dateSchema, emailAddress, shortText } from './fields.ts';
import { enumFilter, optional, type RegisterSpec, required, withDefault } from './registers/spec.ts';
import { PERSON_KINDS } from './states.ts';

const kind = caseInsensitiveEnum(PERSON_KINDS).describe('Kind of person (default EMPLOYEE).');

export const personSpec: RegisterSpec = {
  kind: 'person',
  prefix: 'per',
  label: 'person',
  labelPlural: 'people',
  noun: 'Person',
  nounPlural: 'People',
  key: 'person',
  listKey: 'people',
  table: people,
  nameFields: ['full_name'],
  about: 'A person (employee, contractor, service account) can own records.',
  idNote: 'an entry of the people register, who may own records',
  fields: {
    full_name: required(shortText().describe('Full name, e.g. "Ada Lovelace".')),
    email: required(
      emailAddress.describe('Work email, unique within the organization (stored in lower case).'),
    ),
    kind: withDefault(kind, 'EMPLOYEE'),
    position: optional(shortText().describe('Job title, e.g. "CTO".')),
    contract_start_date: optional(dateSchema.describe('Contract start.')),
    contract_end_date: optional(dateSchema.describe('Contract end.')),
  },
  unique: ['email'],
  search: [people.full_name, people.email, people.position],
  filters: {
    kind: enumFilter(kind, people.kind, 'Any of these kinds.'),
  },
  orderFields: {
    full_name: { column: people.full_name },
  },
  hints: {
    add: 'The email must be unique within the organization (conflict otherwise).',
    delete: 'e.g. an employee or contractor who left',
  },
  example: {
    organization_id: 'org_...',
    full_name: 'Ada Lovelace',
    email: 'ada@example.com',
    position: 'CTO',
  },
};
