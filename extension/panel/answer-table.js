// Structured answers in the panel: "Answer as a table" asks the task for a list of rows with the
// columns the user names (an output schema the core checks the answer against), and an `answer`
// event's data is shown as a table, with CSV and JSON downloads.

import { t } from '../shared/i18n.js';
import { element, button, download } from '../shared/dom.js';

const toggle = document.getElementById('answer-table');
const columnsField = document.getElementById('answer-columns');
const columnsRow = document.getElementById('answer-columns-row');

toggle.addEventListener('change', () => {
  columnsRow.hidden = !toggle.checked;
  columnsField.setCustomValidity('');
  if (toggle.checked) columnsField.focus();
});
// The form is checked before it is sent: a column named since clears the complaint.
columnsField.addEventListener('input', () => columnsField.setCustomValidity(''));

/** The columns the user named, in order, each once. */
function columns() {
  return [...new Set(columnsField.value.split(',').map((c) => c.trim()).filter(Boolean))];
}

/**
 * What a new task's request adds for "Answer as a table": its output schema, a list of rows with
 * the named columns as text. `null` when the user asked for a table but named no column (the
 * field then says so); `{}` when no table is asked for.
 */
export function tableRequest() {
  if (!toggle.checked) return {};
  const named = columns();
  if (!named.length) {
    columnsField.setCustomValidity(t('panel_answer_columns_missing'));
    columnsField.reportValidity();
    return null;
  }
  const row = schemaOf('object', {
    properties: Object.fromEntries(named.map((c) => [c, schemaOf('string')])),
    required: named,
    additionalProperties: false,
  });
  return { outputSchema: schemaOf('array', { items: row }) };
}

/** A JSON Schema of type `kind` (written so, its type is not taken for a message's type). */
const schemaOf = (kind, more = {}) => ({ type: kind, ...more });

/** The rows of `data` when it is a table (a list of objects), with their columns; else null. */
function asTable(data) {
  if (!Array.isArray(data) || !data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) return null;
  const names = [...new Set(data.flatMap((row) => Object.keys(row)))];
  return { names, rows: data };
}

/** A cell as text: a text as it is, nothing for null, anything else as JSON. */
const cellText = (value) => (typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value));

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break. A text from a
 * page that a spreadsheet would run as a formula (=, +, -, @ first, not a number) is written with
 * a leading apostrophe, so that opening the file runs nothing.
 */
function csvField(value) {
  let text = cellText(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^[+-]?\d/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The table as CSV: a header of the columns, then a line per row. */
function toCsv({ names, rows }) {
  const lines = [names, ...rows.map((row) => names.map((name) => row[name]))];
  return `${lines.map((line) => line.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** The answer's data: a table (or the JSON, for data of another shape), with its downloads. */
export function renderData(event) {
  const card = element('section', 'message data-card');
  card.setAttribute('aria-label', t('panel_data'));
  card.append(element('h2', null, t('panel_data')));
  const table = asTable(event.data);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const actions = element('div', 'answer-actions');
  if (table) {
    const grid = element('table', 'data-table');
    const head = grid.createTHead().insertRow();
    for (const name of table.names) head.append(element('th', null, name));
    const body = grid.createTBody();
    for (const row of table.rows) {
      const line = body.insertRow();
      for (const name of table.names) line.insertCell().textContent = cellText(row[name]);
    }
    const scroller = element('div', 'data-scroll');
    scroller.append(grid);
    card.append(scroller);
    actions.append(button('download csv', t('panel_download_csv'),
      () => download(`agent-answer-${stamp}.csv`, toCsv(table), 'text/csv'), t('panel_download_csv_label')));
  } else {
    card.append(element('pre', 'data-json', JSON.stringify(event.data, null, 2)));
  }
  actions.append(button('download json', t('panel_download_json'),
    () => download(`agent-answer-${stamp}.json`, `${JSON.stringify(event.data, null, 2)}\n`, 'application/json'),
    t('panel_download_json_label')));
  card.append(actions);
  return card;
}
