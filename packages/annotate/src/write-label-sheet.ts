import { VOCABULARIES, LABEL_DIMENSIONS, writeFileAtomic, type LabelDimension } from '@junobench/core';
import { REVIEWED, SHEET_COLUMNS, SHEET_NAMES, type LabelSheetPlan, type SheetColumnKey } from './plan-label-sheet.js';

/** A suggestion's cell: what marks it as not (yet) the annotator's label. */
const SUGGESTED_FILL = 'FFFFF2CC';
const SUGGESTED_FONT = 'FF7F6000';
const HEADER_FILL = 'FFDDEBF7';
/** The date in the workbook and its zip entries (a zip's DOS dates start in 1980): fixed, so the bytes are. */
const SHEET_DATE = new Date(Date.UTC(1980, 0, 1));

/** Where each vocabulary sits in the vocabularies sheet (its column), for the dropdowns. */
const VOCABULARY_COLUMNS: Record<LabelDimension, string> = {
  library: 'A',
  crashType: 'B',
  rootCause: 'C',
  pipelineStage: 'D',
};

const TITLES: Record<LabelDimension, string> = {
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};

/**
 * The workbook of `labels sheet`: a "labels" sheet (one row per instance,
 * the four vocabularies as dropdowns through data validation, suggestions
 * in yellow italics with a note, "reviewed" no until the annotator makes the
 * row theirs), the "vocabularies" the dropdowns list, and an "about" sheet
 * naming the annotator (`labels import` checks it). The same plan gives the
 * same bytes: the zip entries carry a fixed date.
 */
export async function renderLabelSheet(plan: LabelSheetPlan, date: Date = SHEET_DATE): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  wb.creator = 'junobench labels sheet';
  wb.lastModifiedBy = 'junobench labels sheet';
  wb.created = date;
  wb.modified = date;
  wb.title = `JunoBench labels of ${plan.annotator}`;

  const ws = wb.addWorksheet(SHEET_NAMES.labels, { views: [{ state: 'frozen', xSplit: 1, ySplit: 1 }] });
  ws.columns = SHEET_COLUMNS.map((c) => ({ header: c.header, key: c.key, width: c.width }));
  const header = ws.getRow(1);
  header.font = { bold: true };
  header.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: HEADER_FILL } };
  });
  const col = (key: SheetColumnKey) => SHEET_COLUMNS.findIndex((c) => c.key === key) + 1;
  for (const [i, r] of plan.rows.entries()) {
    const row = ws.getRow(i + 2);
    row.getCell(col('instance')).value = r.id;
    row.getCell(col('status')).value = r.status;
    row.getCell(col('crash')).value = clean(r.crash);
    row.getCell(col('report')).value = r.reportHref
      ? { text: `${r.id}.html`, hyperlink: r.reportHref }
      : 'no report page yet (junobench report)';
    for (const d of LABEL_DIMENSIONS) {
      const cell = row.getCell(col(d));
      if (r.values[d] !== undefined) cell.value = r.values[d]!;
      cell.dataValidation = {
        type: 'list',
        allowBlank: true,
        formulae: [
          `${SHEET_NAMES.vocabularies}!$${VOCABULARY_COLUMNS[d]}$2:$${VOCABULARY_COLUMNS[d]}$${VOCABULARIES[d].length + 1}`,
        ],
        showErrorMessage: true,
        // A library outside the canonical list may be labelled by its package name: warn, do not stop.
        errorStyle: d === 'library' ? 'warning' : 'stop',
        errorTitle: `Not a ${TITLES[d]}`,
        error: `Pick a ${TITLES[d]} from the list (the vocabularies sheet).`,
      };
      if (r.suggested.includes(d)) {
        cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: SUGGESTED_FILL } };
        cell.font = { italic: true, color: { argb: SUGGESTED_FONT } };
        cell.note =
          'Suggested by junobench, not a label: check it (change it if it is wrong), then set "reviewed" to yes.';
      }
    }
    if (r.values.diagnosis !== undefined) row.getCell(col('diagnosis')).value = clean(r.values.diagnosis);
    const reviewed = row.getCell(col('reviewed'));
    reviewed.value = r.reviewed;
    reviewed.dataValidation = {
      type: 'list',
      allowBlank: true,
      formulae: [`"${REVIEWED.yes},${REVIEWED.no}"`],
      showErrorMessage: true,
      errorStyle: 'stop',
      errorTitle: 'yes or no',
      error: 'yes: the labels of this row are yours (they are imported); no: not yet (the row is left out).',
    };
    row.getCell(col('suggestions')).value = clean(r.suggestions);
    row.alignment = { vertical: 'top', wrapText: true };
  }

  const vocab = wb.addWorksheet(SHEET_NAMES.vocabularies);
  vocab.columns = LABEL_DIMENSIONS.map((d) => ({ header: TITLES[d], key: d, width: 26 }));
  vocab.getRow(1).font = { bold: true };
  for (const d of LABEL_DIMENSIONS) {
    for (const [i, v] of VOCABULARIES[d].entries()) vocab.getCell(`${VOCABULARY_COLUMNS[d]}${i + 2}`).value = v;
  }

  const about = wb.addWorksheet(SHEET_NAMES.about);
  about.columns = [
    { key: 'k', width: 16 },
    { key: 'v', width: 100 },
  ];
  const rows: [string, string][] = [
    ['annotator', plan.annotator],
    ['instances', String(plan.rows.length)],
    [
      'how',
      'Label each row in the four columns (the dropdowns list the vocabularies) and write a diagnosis: what went wrong and why. ' +
        'Yellow italic cells are suggestions, not labels. When a row holds your labels, set "reviewed" to yes: only those rows are imported.',
    ],
    ['then', `junobench labels import <this file> --annotator ${plan.annotator}`],
    ['made by', 'junobench labels sheet'],
  ];
  for (const [k, v] of rows) about.addRow({ k, v });
  about.getColumn(1).font = { bold: true };

  const raw = Buffer.from(await wb.xlsx.writeBuffer());
  return rezip(raw, date);
}

/** Write the workbook atomically. */
export async function writeLabelSheet(file: string, plan: LabelSheetPlan, date?: Date): Promise<number> {
  const bytes = await renderLabelSheet(plan, date);
  await writeFileAtomic(file, bytes);
  return bytes.length;
}

// exceljs dates every zip entry with the time of writing: the same entries again with one fixed date.
async function rezip(buffer: Buffer, date: Date): Promise<Buffer> {
  const { default: JSZip } = await import('jszip');
  const src = await JSZip.loadAsync(buffer);
  const out = new JSZip();
  for (const name of Object.keys(src.files).sort()) {
    const f = src.files[name]!;
    if (f.dir) continue;
    out.file(name, await f.async('nodebuffer'), { date, createFolders: false });
  }
  return out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

// XML 1.0 cannot hold most control characters (a notebook's message may carry terminal colours).
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}
