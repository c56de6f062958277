// Assets: physical and virtual things the organization must protect, and the vendors that host them.
import { z } from 'zod';
import { assets, assetVendors } from '../db/schema.ts';
import { descriptionField, linkedFilter, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum, longText } from './fields.ts';
import { enumFilter, optional, type RegisterSpec, withDefault } from './registers/spec.ts';
import { ASSET_TYPES } from './states.ts';

const assetType = caseInsensitiveEnum(ASSET_TYPES).describe(
  'PHYSICAL (laptops, servers) or VIRTUAL (databases, SaaS accounts).',
);

export const assetSpec: RegisterSpec = {
  kind: 'asset',
  prefix: 'ast',
  label: 'asset',
  labelPlural: 'assets',
  noun: 'Asset',
  nounPlural: 'Assets',
  key: 'asset',
  listKey: 'assets',
  table: assets,
  about: 'An asset is something of value to protect, e.g. laptops, a production database.',
  fields: {
    name: nameField('Production PostgreSQL cluster'),
    description: descriptionField('asset'),
    asset_type: withDefault(assetType, 'VIRTUAL'),
    amount: withDefault(z.number().int().min(0).max(1_000_000_000).describe('How many (default 1).'), 1),
    owner_id: ownerField(),
    data_types_stored: optional(
      longText(1000).describe('Kinds of data stored, e.g. "Customer PII, invoices".'),
    ),
  },
  relations: [
    {
      field: 'vendor_ids',
      table: assetVendors,
      ownerColumn: assetVendors.asset_id,
      targetColumn: assetVendors.vendor_id,
      organizationColumn: assetVendors.organization_id,
      target: 'vendor',
      writable: true,
      description: 'Ids of the vendors that host or provide this asset (`ven_...`).',
      label: 'Vendors',
      hint: 'The vendors that host or provide this asset.',
    },
  ],
  search: [assets.name, assets.description, assets.data_types_stored],
  filters: {
    asset_type: enumFilter(assetType, assets.asset_type, 'Any of these types.'),
    owner_id: ownerFilter(assets.owner_id),
    vendor_id: linkedFilter(
      { ownerId: assets.id, owner: assetVendors.asset_id, target: assetVendors.vendor_id },
      { prefix: 'ven', what: 'Vendor' },
      'Only those this vendor hosts or provides (`ven_...`).',
    ),
  },
  orderFields: {
    name: { column: assets.name },
  },
  hints: {
    add: 'Record something of value to protect: a laptop, a server, a production database.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Employee laptops',
    asset_type: 'PHYSICAL',
    amount: 42,
    data_types_stored: 'Source code, customer emails',
  },
};
