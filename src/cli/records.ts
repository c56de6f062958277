// The registers from the operator's shell: the demo, framework catalogues, record imports and evidence files of
// any size (the request limit does not apply), each acting as the organization's first owner (context.ts).
import { seedDemo } from '../demo/seed.ts';
import { fileKindNamed } from '../tools/imports/file-kinds.ts';
import { REGISTER_SPECS } from '../tools/index.ts';
import { kindNamed } from '../tools/registers/spec.ts';
import { type CliCommand, oneOrganization, UsageError } from './args.ts';
import { addEvidenceFile } from './evidence-file.ts';
import { importFrameworkFile } from './framework-file.ts';
import { exportFileKindFile, importFileKindFile, importRecordsFile } from './import-file.ts';

export const RECORD_COMMANDS: CliCommand[] = [
  {
    name: 'seed',
    usage:
      'seed --demo                                             -> {"email","password","organization_id","token"}',
    async run({ db, tokens, now, values }) {
      if (!values.demo) throw new UsageError('seed needs --demo');
      return await seedDemo(db, tokens, now);
    },
  },
  {
    name: 'framework import',
    argument: 'FILE',
    usage: `framework import --org ORG_ID (--framework FWK_ID | --name N [--version V]) [--format oscal|csv]
               [--dry-run] [--remove-missing] FILE        -> {"framework":{...},"counts":{"created",...},...}
               loads an OSCAL catalog (.json) or a CSV (ref,title,description,parent,section) by reference;
               --name finds the organization's framework of that name or creates it`,
    async run({ db, now, values, argument }) {
      if (!argument) throw new UsageError('framework import needs a FILE');
      const organizationId = oneOrganization(values);
      const format = values.format ?? (/\.csv$/i.test(argument) ? 'csv' : 'oscal');
      if (format !== 'oscal' && format !== 'csv') throw new UsageError('--format must be oscal or csv');
      return await importFrameworkFile(db, now, {
        organizationId,
        frameworkId: values.framework,
        name: values.name,
        version: values.version,
        format,
        file: argument,
        dryRun: values['dry-run'] === true,
        removeMissing: values['remove-missing'] === true,
      });
    },
  },
  {
    name: 'import',
    argument: 'FILE',
    usage: `import --org ORG_ID --kind risks [--dry-run] [--create-people] [--date-format DD/MM/YYYY|MM/DD/YYYY]
               [--sheet NAME] FILE                        -> {"counts":{"created","updated","refused",...},...}
               a CSV (UTF-8 or UTF-16, comma, semicolon or tab) or XLSX file of any size, streamed, written in
               one transaction: every row or none; a dry run reports the refused rows without writing;
               --kind questionnaire_templates, or audit_checklist --audit AUD_ID: a file as export writes it`,
    async run({ db, now, values, argument }) {
      if (!argument) throw new UsageError('import needs a FILE');
      const organizationId = oneOrganization(values);
      const fileKind = fileKindNamed(values.kind ?? '');
      if (values.audit !== undefined && fileKind !== 'audit_checklist_result')
        throw new UsageError('--audit goes with --kind audit_checklist');
      if (fileKind)
        return await importFileKindFile(db, now, {
          organizationId,
          kind: fileKind,
          file: argument,
          dryRun: values['dry-run'] === true,
          ...(values.audit !== undefined ? { auditId: values.audit } : {}),
          ...(values.sheet !== undefined ? { sheet: values.sheet } : {}),
        });
      const kind = kindNamed(REGISTER_SPECS, values.kind ?? '');
      if (!kind)
        throw new UsageError(
          '--kind must name a register, e.g. risks, vendors, people, or questionnaire_templates or audit_checklist',
        );
      const dateFormat = values['date-format']?.toUpperCase();
      if (dateFormat !== undefined && dateFormat !== 'DD/MM/YYYY' && dateFormat !== 'MM/DD/YYYY')
        throw new UsageError('--date-format must be DD/MM/YYYY or MM/DD/YYYY');
      return await importRecordsFile(db, now, {
        organizationId,
        kind,
        file: argument,
        dryRun: values['dry-run'] === true,
        createPeople: values['create-people'] === true,
        ...(dateFormat ? { dateFormat } : {}),
        ...(values.sheet !== undefined ? { sheet: values.sheet } : {}),
      });
    },
  },
  {
    name: 'export',
    argument: 'FILE',
    usage: `export --org ORG_ID (--kind questionnaire_templates --id QTP_ID | --kind audit_checklist --audit AUD_ID)
               FILE                                       -> {"kind","file","rows"}
               writes a template (a row per question) or an audit's checklist results (a row per requirement)
               as CSV, or as JSON when FILE ends in .json; the CSV imports back with import`,
    async run({ db, now, values, argument }) {
      if (!argument) throw new UsageError('export needs a FILE');
      const organizationId = oneOrganization(values);
      const kind = fileKindNamed(values.kind ?? '');
      if (!kind) throw new UsageError('--kind must be questionnaire_templates or audit_checklist');
      const id = kind === 'questionnaire_template' ? values.id : values.audit;
      if (!id)
        throw new UsageError(
          kind === 'questionnaire_template'
            ? 'Missing --id (the template, qtp_...)'
            : 'Missing --audit (aud_...)',
        );
      return await exportFileKindFile(db, now, { organizationId, kind, id, file: argument });
    },
  },
  {
    name: 'evidence add',
    argument: 'FILE',
    usage: `evidence add --org ORG_ID --to RECORD_ID [--title T] FILE   -> {"evidence":{...}}
               stores the file (FILES_DIR or FILES_S3_*) and attaches it as evidence to a measure, requirement,
               risk, vendor, audit, nonconformity or obligation; the title defaults to the file name`,
    async run({ db, now, values, config, argument }) {
      if (!argument) throw new UsageError('evidence add needs a FILE');
      const organizationId = oneOrganization(values);
      if (!values.to) throw new UsageError('Missing --to (the id of the record it is evidence for)');
      const { nodeFileRuntime } = await import('../files/node.ts');
      return await addEvidenceFile(db, nodeFileRuntime(config), now, {
        organizationId,
        recordId: values.to,
        file: argument,
        ...(values.title !== undefined ? { title: values.title } : {}),
      });
    },
  },
];
