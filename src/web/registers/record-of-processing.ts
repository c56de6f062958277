// The record of processing activities an authority asks for (GDPR Art. 30): every processing activity of the
// organization with what Art. 30(1) lists for a controller and Art. 30(2) for a processor, as XLSX or as a PDF.
import { renderPdf } from '../../pdf/document.ts';
import { createXlsxWriter, type XlsxCell } from '../../tools/tables/xlsx-writer.ts';
import { valueLabel } from '../labels.ts';

type Row = Record<string, unknown>;

/** One column of the record: its heading, the article point it answers, and its text from a processing activity. */
interface Column {
  header: string;
  point: string;
  width: number;
  text(row: Row, names: (id: unknown) => string): string;
}

const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
/** The team's free text without its closing full stop, so the vendors can follow it after a semicolon. */
const withoutFullStop = (text: string) => {
  const trimmed = text.trim();
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
};
const words = (value: unknown) => list(value).map(valueLabel).join('; ');

const COLUMNS: Column[] = [
  { header: 'Processing activity', point: '', width: 2, text: (row) => String(row.name ?? '') },
  {
    header: 'Role',
    point: '30(1)(a), 30(2)(a)',
    width: 1.2,
    text: (row) =>
      row.role === 'PROCESSOR'
        ? `Processor for: ${String(row.controllers ?? '')}`
        : valueLabel(String(row.role)),
  },
  { header: 'Purposes', point: '30(1)(b)', width: 2.4, text: (row) => String(row.purposes ?? '') },
  {
    header: 'Lawful basis',
    point: '6(1), 9(2)',
    width: 1.6,
    text: (row) =>
      [
        words(row.lawful_bases),
        row.special_category_condition
          ? `Art. 9(2): ${valueLabel(String(row.special_category_condition))}`
          : '',
      ]
        .filter(Boolean)
        .join('; '),
  },
  {
    header: 'Data subjects',
    point: '30(1)(c)',
    width: 1.5,
    text: (row) => list(row.data_subject_categories).join('; '),
  },
  {
    header: 'Personal data',
    point: '30(1)(c)',
    width: 1.8,
    text: (row) => list(row.personal_data_categories).join('; '),
  },
  {
    header: 'Recipients and processors',
    point: '30(1)(d)',
    width: 1.8,
    text: (row, names) =>
      [withoutFullStop(String(row.recipients ?? '')), list(row.vendor_ids).map(names).join('; ')]
        .filter(Boolean)
        .join('; '),
  },
  {
    header: 'Transfers outside the EEA',
    point: '30(1)(e), 30(2)(c)',
    width: 1.4,
    text: (row) =>
      list(row.transfer_countries).length === 0
        ? 'None'
        : `${list(row.transfer_countries).join(', ')} (${valueLabel(String(row.transfer_safeguard ?? ''))})`,
  },
  { header: 'Retention', point: '30(1)(f)', width: 1.5, text: (row) => String(row.retention ?? '') },
  {
    header: 'Security measures',
    point: '30(1)(g), 30(2)(d)',
    width: 1.8,
    text: (row, names) => list(row.measure_ids).map(names).join('; '),
  },
];

export interface RecordOfProcessing {
  organization: string;
  /** The controller's and DPO's contact details (the organization's setting), or null. */
  contact: string | null;
  activities: Row[];
  /** Vendor and measure names by id. */
  names: Map<string, string>;
  createdAt: Date;
}

/** The record's header lines: who keeps it, their contact, and when it was produced. */
function preamble(record: RecordOfProcessing): string[] {
  return [
    `Controller: ${record.organization}`,
    `Contact of the controller and the data protection officer (Art. 30(1)(a)): ${record.contact ?? 'not set (Settings of the organization)'}`,
    `Produced on ${record.createdAt.toISOString().slice(0, 10)} from the register of processing activities (${record.activities.length} entries).`,
  ];
}

function cells(record: RecordOfProcessing): string[][] {
  const name = (id: unknown) => record.names.get(String(id)) ?? String(id);
  return record.activities.map((row) => COLUMNS.map((column) => column.text(row, name)));
}

/** The record as a workbook: its header lines, a blank row, then one row per processing activity. */
export function recordOfProcessingXlsx(record: RecordOfProcessing): Uint8Array[] {
  const sheet = createXlsxWriter('Art. 30 record');
  const chunks = [
    sheet.header(
      COLUMNS.map((column) => (column.point ? `${column.header} (Art. ${column.point})` : column.header)),
    ),
  ];
  chunks.push(sheet.rows(cells(record) as XlsxCell[][]));
  chunks.push(sheet.rows([[], ...preamble(record).map((line) => [line])]));
  chunks.push(sheet.finish());
  return chunks;
}

/** The record as a PDF: a title, the header lines, and the table of processing activities. */
export function recordOfProcessingPdf(record: RecordOfProcessing): Uint8Array {
  return renderPdf(
    {
      title: `Record of processing activities: ${record.organization}`,
      landscape: true,
      footer: `${record.organization} · GDPR Art. 30 record · ${record.createdAt.toISOString().slice(0, 10)}`,
      blocks: [
        { kind: 'heading', level: 1, text: 'Record of processing activities (GDPR Art. 30)' },
        ...preamble(record).map((text) => ({ kind: 'paragraph' as const, text })),
        {
          kind: 'table',
          columns: COLUMNS.map((column) => ({ title: column.header, width: column.width })),
          rows: cells(record),
        },
        {
          kind: 'paragraph',
          small: true,
          text: 'Columns answer Regulation (EU) 2016/679, Art. 30(1) for activities the organization controls and Art. 30(2) for those it processes for another controller.',
        },
      ],
    },
    record.createdAt,
  );
}
