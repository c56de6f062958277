// Data classifications: kinds of data with a sensitivity level and the vendors that process them.
import { dataClassifications, dataClassificationVendors } from '../db/schema.ts';
import { descriptionField, linkedFilter, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum } from './fields.ts';
import { enumFilter, type RegisterSpec, withDefault } from './registers/spec.ts';
import { CLASSIFICATIONS } from './states.ts';

const classification = caseInsensitiveEnum(CLASSIFICATIONS).describe('Sensitivity (default INTERNAL).');

export const dataClassificationSpec: RegisterSpec = {
  kind: 'data_classification',
  prefix: 'dcl',
  label: 'data classification',
  labelPlural: 'data classifications',
  noun: 'DataClassification',
  nounPlural: 'DataClassifications',
  key: 'data_classification',
  listKey: 'data_classifications',
  table: dataClassifications,
  about: 'A data classification names a kind of data (e.g. "Customer PII") and its sensitivity level.',
  fields: {
    name: nameField('Customer personal data'),
    description: descriptionField('data'),
    classification: withDefault(classification, 'INTERNAL'),
    owner_id: ownerField(),
  },
  relations: [
    {
      field: 'vendor_ids',
      table: dataClassificationVendors,
      ownerColumn: dataClassificationVendors.data_classification_id,
      targetColumn: dataClassificationVendors.vendor_id,
      organizationColumn: dataClassificationVendors.organization_id,
      target: 'vendor',
      writable: true,
      description: 'Ids of the vendors that process data of this classification (`ven_...`).',
      label: 'Vendors',
      hint: 'The vendors that process data of this classification.',
    },
  ],
  search: [dataClassifications.name, dataClassifications.description],
  filters: {
    classification: enumFilter(classification, dataClassifications.classification, 'Any of these levels.'),
    owner_id: ownerFilter(dataClassifications.owner_id),
    vendor_id: linkedFilter(
      {
        ownerId: dataClassifications.id,
        owner: dataClassificationVendors.data_classification_id,
        target: dataClassificationVendors.vendor_id,
      },
      { prefix: 'ven', what: 'Vendor' },
      'Only those this vendor processes (`ven_...`).',
    ),
  },
  orderFields: {
    name: { column: dataClassifications.name },
  },
  example: { organization_id: 'org_...', name: 'Customer PII', classification: 'CONFIDENTIAL' },
};
