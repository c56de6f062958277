// Frameworks: compliance standards the organization follows or is audited against (ISO 27001, SOC 2, ...).

import { z } from 'zod';
import { frameworks } from '../db/schema.ts';
import { descriptionField, nameField } from './common-fields.ts';
import { shortText } from './fields.ts';
import { derived, optional, type RegisterSpec } from './registers/spec.ts';

export const frameworkSpec: RegisterSpec = {
  kind: 'framework',
  prefix: 'fwk',
  label: 'framework',
  labelPlural: 'frameworks',
  noun: 'Framework',
  nounPlural: 'Frameworks',
  key: 'framework',
  listKey: 'frameworks',
  table: frameworks,
  about:
    'A framework is a compliance standard such as ISO 27001 or SOC 2; audits belong to a framework. Adopt a built-in one with importFrameworkCatalog {catalog}.',
  fields: {
    name: nameField('ISO/IEC 27001'),
    description: descriptionField('framework'),
    version: optional(shortText(50).describe('Version or edition, e.g. "2022".')),
    catalog_key: derived(
      z
        .string()
        .nullable()
        .describe(
          'The built-in catalogue it was adopted from (listCatalogs), e.g. "iso-27001-2022"; null if none.',
        ),
      { label: 'Catalogue' },
    ),
    catalog_revision: derived(
      z.number().int().nullable().describe("That catalogue file's revision when last imported."),
      { label: 'Catalogue revision' },
    ),
  },
  search: [frameworks.name, frameworks.description],
  orderFields: {
    name: { column: frameworks.name },
  },
  example: { organization_id: 'org_...', name: 'ISO/IEC 27001', version: '2022' },
};
