// Importing a file into a register from the web: upload a CSV or XLSX file, see how each column is read (and change
// it) beside the first rows and the dry run's report, then import: all through the importRecords tool (webCalls).
import type { Context } from 'hono';
import { Hono } from 'hono';
import { emailHeaderOf, importFieldsOf, matchColumns, matchedField } from '../../tools/imports/columns.ts';
import type { ImportReport } from '../../tools/imports/engine.ts';
import { DATE_FORMATS } from '../../tools/imports/values.ts';
import { importRecords } from '../../tools/index.ts';
import { createCsvReader } from '../../tools/tables/csv-reader.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { setFlash } from '../flash.ts';
import { text } from '../forms.tsx';
import { CsrfField, Layout, Notice } from '../layout.tsx';
import { REGISTER_PATH, type RegisterPage, registerPageBySlug } from '../register-pages.ts';
import { notFoundPage, sendPage } from '../render.tsx';
import { webCalls } from '../tool-calls.ts';
import { csvOfFile, readWholeForm } from '../uploads.ts';
import { viewerOf } from '../viewer.ts';

/** Rows shown under the column matches. */
const PREVIEW_ROWS = 5;
const IGNORE = '';

/** A refusal of the import as the preview shows it: a message and the rows or columns it names. */
interface ImportError {
  message: string;
  details: { path: string; message: string }[];
}

interface Upload {
  csv: string;
  fileName: string;
}

/** The header and the first rows of the CSV text. */
function previewOf(csv: string): { header: string[]; rows: string[][] } {
  const reader = createCsvReader();
  const rows = [...reader.push(csv), ...reader.end()].slice(0, PREVIEW_ROWS + 1).map((row) => row.cells);
  const [header = [], ...rest] = rows;
  return { header, rows: rest };
}

function ImportForm(props: {
  page: RegisterPage;
  base: string;
  csrfToken: string;
  maxBytes: number;
  error?: string;
}) {
  const { page } = props;
  return (
    <form method="post" action={`${props.base}/import`} enctype="multipart/form-data" class="card">
      <CsrfField token={props.csrfToken} />
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <div class="field">
        <label for="file">CSV or XLSX file</label>
        <input
          id="file"
          name="file"
          type="file"
          accept=".csv,.txt,.xlsx,text/csv"
          required
          aria-describedby="file-hint"
        />
        <span class="hint" id="file-hint">
          A header row, then one row per {page.spec.label}. Columns by field name or by the labels of this
          interface (as Export CSV writes them); a row with an id updates that {page.spec.label}. At most{' '}
          {Math.floor(props.maxBytes / 1024)} KB here; larger files: <code>compliance-mcp import</code>.
        </span>
      </div>
      <ImportOptions />
      <button type="submit">Upload and check</button>
    </form>
  );
}

function ImportOptions(props: { sheet?: string; dateFormat?: string; createPeople?: boolean }) {
  return (
    <>
      <div class="field">
        <label for="sheet">Sheet (XLSX)</label>
        <input id="sheet" name="sheet" type="text" value={props.sheet ?? ''} aria-describedby="sheet-hint" />
        <span class="hint" id="sheet-hint">
          Empty: the first sheet.
        </span>
      </div>
      <div class="field">
        <label for="date_format">Dates that are not ISO (2026-11-25)</label>
        <select id="date_format" name="date_format">
          <option value="">Refuse them</option>
          {DATE_FORMATS.map((format) => (
            <option value={format} selected={props.dateFormat === format}>
              {format}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label>
          <input type="checkbox" name="create_people" value="yes" checked={props.createPeople} /> Create the
          people named as owners who are not found
        </label>
      </div>
    </>
  );
}

function Report({ report }: { report: ImportReport }) {
  const { counts } = report;
  return (
    <section aria-labelledby="report-title">
      <h2 id="report-title">Check (nothing written yet)</h2>
      <p>
        {counts.rows} rows: {counts.created} to create, {counts.updated} to update, {counts.unchanged}{' '}
        unchanged, <strong>{counts.refused} refused</strong>
        {counts.people_created > 0 ? `, ${counts.people_created} people to create` : ''}.
      </p>
      {report.errors.length > 0 && (
        <DataTable
          items={report.errors}
          empty=""
          caption={`Refused rows${report.errors_truncated ? ' (the first 100)' : ''}`}
          captionShown
          columns={[
            { header: 'Row', cell: (error) => error.row },
            {
              header: 'Column',
              cell: (error) => error.column ?? (error.field ? `${error.field} (no column)` : '—'),
            },
            { header: 'Why', cell: (error) => error.message },
          ]}
        />
      )}
    </section>
  );
}

/**
 * The refusal of columns that match no field, said for the preview page: there the person picks each one's field in
 * the table above (the tool's message speaks of its `columns` argument). The page knows these columns from its own
 * match of the header (the same matchColumns the tool runs), not from the tool's words.
 */
function columnsToChoose(unknown: string[], labelPlural: string): ImportError {
  const names = unknown.map((header) => `"${header}"`).join(', ');
  return {
    message:
      unknown.length > 1
        ? `The columns ${names} are not fields of ${labelPlural}: choose their fields above (or Ignore), then check again.`
        : `The column ${names} is not a field of ${labelPlural}: choose its field above (or Ignore), then check again.`,
    details: [],
  };
}

function PreviewPage(props: {
  page: RegisterPage;
  membership: Membership;
  base: string;
  csrfToken: string;
  upload: Upload;
  chosen: Record<string, string | null>;
  options: { sheet: string; dateFormat: string; createPeople: boolean };
  report: ImportReport | null;
  error: ImportError | null;
}) {
  const { page } = props;
  const { header, rows } = previewOf(props.upload.csv);
  const matches = matchColumns(page.tools, header, props.chosen);
  const fields = importFieldsOf(page.tools);
  const choices = [
    { value: 'id', label: 'Id (updates that record)' },
    ...fields.flatMap((field) => [
      { value: field.name, label: field.label },
      ...(field.target === 'person' && field.kind === 'ref'
        ? [{ value: `${field.name.replace(/_id$/, '')}_email`, label: emailHeaderOf(field.label) }]
        : []),
    ]),
  ];
  const chosenValue = (match: (typeof matches)[number]) => {
    const field = matchedField(match);
    if (match.target.kind === 'field' && match.target.byEmail)
      return `${match.target.field.replace(/_id$/, '')}_email`;
    return match.target.kind === 'id' || match.target.kind === 'field' ? (field ?? IGNORE) : IGNORE;
  };
  const canImport = props.report !== null && props.report.counts.refused === 0;
  return (
    <form method="post" action={`${props.base}/import`} enctype="multipart/form-data">
      <CsrfField token={props.csrfToken} />
      <p class="lead">
        {props.upload.fileName}: how each column is read, with the first rows. Change a column's field and
        check again, or import.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              {matches.map((match) => (
                <th scope="col">
                  <label for={`column-${match.column}`}>{match.header || `(column ${match.column})`}</label>
                  <select id={`column-${match.column}`} name={`column.${match.column}`}>
                    <option value={IGNORE}>
                      {match.target.kind === 'read_only' ? 'Read only: ignored' : 'Ignore'}
                    </option>
                    {match.target.kind === 'unknown' && (
                      <option value="?" selected>
                        Not a field: choose
                      </option>
                    )}
                    {choices.map((choice) => (
                      <option value={choice.value} selected={choice.value === chosenValue(match)}>
                        {choice.label}
                      </option>
                    ))}
                  </select>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((cells) => (
              <tr>
                {matches.map((_, index) => (
                  <td>{cells[index] ?? ''}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.error && (
        <Notice kind="error">
          {props.error.message}
          {props.error.details.length > 0 && (
            <ul>
              {props.error.details.slice(0, 100).map((detail) => (
                <li>
                  {detail.path}: {detail.message}
                </li>
              ))}
            </ul>
          )}
        </Notice>
      )}
      {props.report && <Report report={props.report} />}
      <textarea name="csv" hidden>
        {props.upload.csv}
      </textarea>
      <input type="hidden" name="file_name" value={props.upload.fileName} />
      <ImportOptions
        sheet={props.options.sheet}
        dateFormat={props.options.dateFormat}
        createPeople={props.options.createPeople}
      />
      <p class="actions">
        <button type="submit" name="action" value="check" class="quiet">
          Check again
        </button>
        <button type="submit" name="action" value="import" disabled={!canImport}>
          Import {props.report ? props.report.counts.rows : ''} rows
        </button>
      </p>
    </form>
  );
}

export function importRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const path = `${REGISTER_PATH}/import`;

  function writable(c: Context<WebEnv>) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    const page = registerPageBySlug(c.req.param('register') ?? '');
    if (!membership || !page || page.importable === false)
      return { refused: notFoundPage(c, viewerOf(c)) } as const;
    if (!mayWrite(membership))
      return { refused: notAllowedPage(c, membership, 'importing records') } as const;
    return { membership, page, base: `/orgs/${membership.organizationId}/${page.slug}` } as const;
  }

  const layout = (
    c: Context<WebEnv>,
    membership: Membership,
    page: RegisterPage,
    body: unknown,
    status = 200,
  ) =>
    sendPage(
      c,
      <Layout
        title={`Import ${page.spec.labelPlural} · ${membership.name}`}
        viewer={viewerOf(c)}
        section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
      >
        <h1>Import {page.spec.labelPlural}</h1>
        {body as never}
      </Layout>,
      status as 200,
    );

  web.get(path, (c) => {
    const found = writable(c);
    if ('refused' in found) return found.refused as Response | Promise<Response>;
    const { membership, page, base } = found;
    return layout(
      c,
      membership,
      page,
      <ImportForm
        page={page}
        base={base}
        csrfToken={c.get('session').csrfToken}
        maxBytes={deps.config.maxBodyBytes}
      />,
    );
  });

  web.post(path, async (c) => {
    const found = writable(c);
    if ('refused' in found) return found.refused as Response | Promise<Response>;
    const { membership, page, base } = found;
    // The token first (the form's first field), then the file whole: it is parsed whole anyway.
    const body = await readWholeForm(c);
    if (body instanceof Response) return body;
    const csrfToken = c.get('session').csrfToken;
    const options = {
      sheet: text(body, 'sheet').trim(),
      dateFormat: DATE_FORMATS.find((format) => format === text(body, 'date_format')) ?? '',
      createPeople: text(body, 'create_people') === 'yes',
    };
    const file = body.file;
    const refusedFile = (message: string) =>
      layout(
        c,
        membership,
        page,
        <ImportForm
          page={page}
          base={base}
          csrfToken={csrfToken}
          maxBytes={deps.config.maxBodyBytes}
          error={message}
        />,
        400,
      );
    let upload: Upload;
    try {
      upload =
        file instanceof File && file.size > 0
          ? { csv: await csvOfFile(file, options.sheet, deps.config.maxBodyBytes), fileName: file.name }
          : { csv: text(body, 'csv'), fileName: text(body, 'file_name') || 'The file' };
    } catch (error) {
      return refusedFile(error instanceof Error ? error.message : 'The file could not be read.');
    }
    if (upload.csv.trim() === '')
      return refusedFile('The file is empty: expected a header row, then one row per record.');
    // The columns' fields as chosen on the preview (none on the first upload: matched by their headers).
    const { header } = previewOf(upload.csv);
    const chosen: Record<string, string> = {};
    header.forEach((name, index) => {
      const value = body[`column.${index + 1}`];
      if (typeof value === 'string' && value !== '?') chosen[name] = value === IGNORE ? '' : value;
    });
    const commit = text(body, 'action') === 'import';
    const outcome = await webCalls(c, deps).write(importRecords, {
      organization_id: membership.organizationId,
      kind: page.kind,
      csv: upload.csv,
      dry_run: !commit,
      create_people: options.createPeople,
      ...(Object.keys(chosen).length > 0 ? { columns: chosen } : {}),
      ...(options.dateFormat ? { date_format: options.dateFormat } : {}),
    });
    if (outcome.ok && commit) {
      const { counts } = outcome.result as unknown as ImportReport;
      setFlash(
        c,
        `Imported ${upload.fileName}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged${counts.people_created ? `, ${counts.people_created} people created` : ''}.`,
      );
      return c.redirect(base, 303);
    }
    const report = outcome.ok ? (outcome.result as unknown as ImportReport) : null;
    // Columns matching no field: the tool refuses the whole file for them, and the page asks for their fields.
    const unknown = matchColumns(page.tools, header, chosen)
      .filter((match) => match.target.kind === 'unknown')
      .map((match) => match.header || `(column ${match.column}, no header)`);
    const error: ImportError | null = outcome.ok
      ? null
      : unknown.length > 0 && outcome.error.code === 'invalid_arguments'
        ? columnsToChoose(unknown, page.spec.labelPlural)
        : {
            message: outcome.error.message,
            details: Array.isArray(outcome.error.details)
              ? (outcome.error.details as { path: string; message: string }[])
              : [],
          };
    return layout(
      c,
      membership,
      page,
      <PreviewPage
        page={page}
        membership={membership}
        base={base}
        csrfToken={csrfToken}
        upload={upload}
        chosen={chosen}
        options={options}
        report={report}
        error={error}
      />,
      outcome.ok ? 200 : outcome.error.status,
    );
  });

  return web;
}
