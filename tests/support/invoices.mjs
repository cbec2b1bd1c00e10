// The invoices of the downloads fixture site, as PDF files made with pdf-lib and as CSV: line
// items with amounts, whose total the test knows.

import { PDFDocument, StandardFonts } from 'pdf-lib';

/** Invoice INV-2041: its line items (amounts in euros, two decimals) and their total. */
export const INVOICE = {
  number: 'INV-2041',
  lines: [
    { item: 'Espresso machine service', amount: '149.90' },
    { item: 'Descaling kit (3 packs)', amount: '38.25' },
    { item: 'Milk frother replacement', amount: '64.00' },
    { item: 'Delivery and handling', amount: '12.35' },
  ],
};

/** The invoice's total, as written: the sum of its amounts. */
export const invoiceTotal = (invoice) => (invoice.lines.reduce((cents, line) => cents + Math.round(Number(line.amount) * 100), 0) / 100).toFixed(2);

/** The invoice as a one-page PDF: a heading, one line per item ("Item: ... Amount: 12.35 EUR"). */
export async function invoicePdf(invoice) {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Invoice ${invoice.number}`);
  pdf.setCreationDate(new Date(Date.UTC(2026, 10, 1)));
  pdf.setModificationDate(new Date(Date.UTC(2026, 10, 1)));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  let y = 780;
  const write = (text, size = 12) => {
    page.drawText(text, { x: 50, y, size, font });
    y -= size * 2;
  };
  write(`Invoice ${invoice.number}`, 20);
  write('Bean & Steam Supplies, 12 Harbour Road');
  for (const line of invoice.lines) write(`Item: ${line.item} Amount: ${line.amount} EUR`);
  write('Payment due within 30 days.');
  return pdf.save({ useObjectStreams: false });
}

/** The invoice's lines as CSV (item,amount). */
export const invoiceCsv = (invoice) => ['item,amount', ...invoice.lines.map((line) => `"${line.item}",${line.amount}`)].join('\n') + '\n';
