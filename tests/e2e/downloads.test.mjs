// The files a task downloads, through the whole extension in Chromium: on an invoices site, a link
// downloads a PDF invoice (made with pdf-lib, served only with the site's session cookie) and a
// button saves the invoice's lines as CSV (a blob: address made by the page). The scripted model
// sees each download in its next request, reads both files with read_file, and answers with the
// total it works out from the text it was sent; the panel then offers both files. A file the
// user downloads meanwhile in a tab of their own is not the task's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchAgentBrowser, applySettings, openTarget, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { INVOICE, invoiceCsv, invoicePdf, invoiceTotal } from '../support/invoices.mjs';
import { waitUntil } from '../support/fixtures.mjs';

const TIMEOUT = 60_000;
const SESSION = 'session=bean-and-steam-42';
const BACKUP_BYTES = 11 * 1024 * 1024;

let agent;
let site;
/** Where the browser saves the downloads. */
let savedTo;

/** The invoices site: its page sets a session cookie, without which the invoice is refused. */
async function startInvoicesSite() {
  const pdf = await invoicePdf(INVOICE);
  const served = [];
  const server = createServer((req, res) => {
    served.push(`${req.headers.host}${req.url}`);
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': `${SESSION}; Path=/; SameSite=Lax` });
      res.end(`<!doctype html><html lang="en"><head><title>Invoices</title></head><body>
<h1>Your invoices</h1>
<p>Invoice ${INVOICE.number}, November 2026.</p>
<p><a href="/invoices/${INVOICE.number}.pdf">Download invoice ${INVOICE.number} (PDF)</a></p>
<p><button id="csv" type="button">Export invoice lines as CSV</button></p>
<p><a href="/backup.zip">Download all invoices (backup)</a></p>
<script>
  document.getElementById('csv').addEventListener('click', () => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([${JSON.stringify(invoiceCsv(INVOICE))}], { type: 'text/csv' }));
    link.download = '${INVOICE.number}-lines.csv';
    link.click();
  });
</script></body></html>`);
    } else if (req.url === `/invoices/${INVOICE.number}.pdf`) {
      if (!req.headers.cookie?.includes(SESSION)) return res.writeHead(403).end('sign in first');
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-disposition': `attachment; filename="${INVOICE.number}.pdf"`,
        'content-length': pdf.length,
      });
      res.end(Buffer.from(pdf));
    } else if (req.url === `/invoices/${INVOICE.number}/view`) {
      // The same invoice, shown in the browser's PDF viewer.
      if (!req.headers.cookie?.includes(SESSION)) return res.writeHead(403).end('sign in first');
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
      res.end(Buffer.from(pdf));
    } else if (req.url === '/backup.zip') {
      // Larger than the 10 MB the agent reads.
      const backup = Buffer.alloc(BACKUP_BYTES, 1);
      res.writeHead(200, { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="backup.zip"', 'content-length': backup.length });
      res.end(backup);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { origin: `http://127.0.0.1:${server.address().port}`, served, close: () => new Promise((done) => server.close(done)) };
}

before(async () => {
  site = await startInvoicesSite();
  agent = await launchAgentBrowser();
  // Playwright saves downloads under made-up names; the browser names them as a user's are named
  // (for as long as the session that says so stays open: its page stays open).
  savedTo = await mkdtemp(join(tmpdir(), 'agent-downloads-'));
  const cdp = await agent.context.newCDPSession(await agent.context.newPage());
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: savedTo });
});

after(async () => {
  await agent?.close();
  await site?.close();
  if (savedTo) await rm(savedTo, { recursive: true, force: true });
});

/** The user, in a tab of their own (the site under another name), downloads the invoice while
 * the task runs; resolves once the browser has saved it. */
async function userDownloadsInOwnTab() {
  const own = await agent.context.newPage();
  await own.goto(site.origin.replace('127.0.0.1', 'localhost'));
  await own.click(`text=Download invoice ${INVOICE.number}`);
  await waitUntil(async () => (await readdir(savedTo)).includes(`${INVOICE.number}.pdf`), TIMEOUT);
  await own.close();
}

/** How many downloads' bytes the worker holds (background/task-files.js). */
function heldDownloads() {
  return agent.worker.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('agent-task-files');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const all = open.result.transaction('files').objectStore('files').getAll();
      all.onerror = () => reject(all.error);
      all.onsuccess = () => {
        resolve(all.result.filter((file) => file.downloadId !== undefined).length);
        open.result.close();
      };
    };
  }));
}

/** Everything the request shows the model. */
const said = (request) => request.messages.map((m) => m.content).join('\n');

/** The name of the downloaded file of this type, as the request tells the model. */
function downloadedName(request, mime) {
  const found = [...said(request).matchAll(/Downloaded (.+?) \(([^,]+), [^)]+\); read_file reads it\./g)].find((m) => m[2] === mime);
  if (!found) throw new Error(`the request names no readable ${mime} download`);
  return found[1];
}

/** The text of the last read of file `name` the request shows. */
function readText(request, name) {
  const reads = [...said(request).matchAll(/<file_content name="([^"]+)">\n([\s\S]*?)\n<\/file_content>/g)].filter((m) => m[1] === name);
  if (!reads.length) throw new Error(`the request shows no read of ${name}`);
  return reads.at(-1)[2];
}

/** The sum of the amounts in `text` (numbers with two decimals), as a model adds them up. */
function total(text, amount) {
  const cents = [...text.matchAll(amount)].reduce((sum, m) => sum + Math.round(Number(m[1]) * 100), 0);
  return (cents / 100).toFixed(2);
}

test('a downloaded PDF invoice and a CSV export are read back, totalled, and offered to the user', async () => {
  let pdfName;
  let csvName;
  let pdfTotal;
  const llm = await startLlmServer([
    // The user's own download comes first, while the model thinks (the task has started).
    () => ({ actions: [{ click_element: { target: `Download invoice ${INVOICE.number}` } }], hold: userDownloadsInOwnTab() }),
    { actions: [{ click_element: { target: 'Export invoice lines as CSV' } }] },
    (request) => {
      pdfName = downloadedName(request, 'application/pdf');
      return { actions: [{ read_file: { name: pdfName } }] };
    },
    (request) => {
      pdfTotal = total(readText(request, pdfName), /Amount: (\d+\.\d\d) EUR/g);
      csvName = downloadedName(request, 'text/csv');
      return { actions: [{ read_file: { name: csvName } }] };
    },
    (request) => {
      const csvTotal = total(readText(request, csvName), /,(\d+\.\d\d)$/gm);
      return { actions: [{ done: { text: `Invoice ${INVOICE.number} totals ${pdfTotal} EUR; its CSV lines total ${csvTotal} EUR.`, success: true } }] };
    },
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 10, highlights: false });
    const target = await openTarget(agent, `${site.origin}/`);
    const panel = await openPanel(agent, target.tabId);
    await panel.fill('#task', `download invoice ${INVOICE.number} and its lines, and tell me the total`);
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });

    const truth = invoiceTotal(INVOICE);
    assert.equal(truth, '264.50');
    assert.equal(await panel.locator('.answer').textContent(), `Invoice ${INVOICE.number} totals ${truth} EUR; its CSV lines total ${truth} EUR.`);
    assert.equal(pdfName, `${INVOICE.number}.pdf`);
    assert.equal(csvName, `${INVOICE.number}-lines.csv`);
    // The click's own result names the download, in the very next request.
    assert.match(llm.requests[1].messages.at(-1).content, new RegExp(`Downloaded ${INVOICE.number}\\.pdf \\(application/pdf, 2 KB\\); read_file reads it\\.`));
    // The invoice was asked for again with the site's cookie (once by the browser, once by the agent).
    assert.equal(site.served.filter((path) => path === `${new URL(site.origin).host}/invoices/${INVOICE.number}.pdf`).length, 2);

    // The panel's list of the task's files offers both, with their sizes and a way to show each.
    const offered = panel.locator('.task-file:has(button.download-show)');
    await offered.first().waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await offered.locator('.task-file-name').allTextContents(), [`${INVOICE.number}.pdf`, `${INVOICE.number}-lines.csv`]);
    assert.deepEqual(await offered.locator('.task-file-about').allTextContents(), ['downloaded, 2 KB', `downloaded, ${Buffer.byteLength(invoiceCsv(INVOICE))} bytes`]);
    // The browser has every file; the one the user downloaded themselves was never the task's.
    const kept = await agent.worker.evaluate(() => chrome.downloads.search({ state: 'complete' }));
    assert.deepEqual(kept.map((item) => new URL(item.referrer).hostname).sort(), ['127.0.0.1', '127.0.0.1', 'localhost']);
    const named = new Set([...said(llm.requests.at(-1)).matchAll(/Downloaded (.+?) \(/g)].map((m) => m[1]));
    assert.deepEqual([...named], [`${INVOICE.number}.pdf`, `${INVOICE.number}-lines.csv`]);
    assert.equal(await heldDownloads(), 0, 'the bytes are let go of once the task is over');
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a file too large to read is listed as such, refused by read_file, and still offered to the user', async () => {
  const llm = await startLlmServer([
    { actions: [{ click_element: { target: 'Download all invoices (backup)' } }] },
    { actions: [{ read_file: { name: 'backup.zip' } }] },
    { actions: [{ done: { text: 'The backup is too large to read.', success: false } }] },
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 10, highlights: false });
    const target = await openTarget(agent, `${site.origin}/`);
    const panel = await openPanel(agent, target.tabId);
    await panel.fill('#task', 'download the backup of all invoices');
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });

    const said = (n) => llm.requests[n].messages.at(-1).content;
    assert.match(said(1), /Downloaded backup\.zip \(application\/zip, 11\.0 MB\); it is too large for the agent to read \(at most 10\.0 MB\), but the user has it\./);
    assert.match(said(2), /Could not read backup\.zip: it is 11\.0 MB, larger than the 10\.0 MB the agent reads; the user has the file, tell them if the task needs it\./);
    // The agent did not ask for it again: its bytes were never wanted.
    assert.equal(site.served.filter((path) => path.endsWith('/backup.zip')).length, 1);
    const offered = panel.locator('.task-file:has(button.download-show)');
    await offered.first().waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await offered.locator('.task-file-name').allTextContents(), ['backup.zip']);
    assert.equal(await offered.locator('.task-file-about').textContent(), 'downloaded, 11.0 MB');
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('extract reads the text of a PDF the tab shows in the browser\'s viewer', async () => {
  const view = `${site.origin}/invoices/${INVOICE.number}/view`;
  const llm = await startLlmServer([
    { actions: [{ go_to_url: { url: view } }] },
    { actions: [{ extract: { query: 'the amounts of the invoice' } }] },
    // The extraction request: the model adds up what the PDF's text says.
    (request) => ({ raw: JSON.stringify({ found: true, answer: `The amounts total ${total(said(request), /Amount: (\d+\.\d\d) EUR/g)} EUR.` }) }),
    (request) => ({ actions: [{ done: { text: said(request).match(/The amounts total [\d.]+ EUR\./g).at(-1), success: true } }] }),
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 10, highlights: false });
    const target = await openTarget(agent, `${site.origin}/`);
    const panel = await openPanel(agent, target.tabId);
    await panel.fill('#task', `total the amounts of invoice ${INVOICE.number}`);
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), `The amounts total ${invoiceTotal(INVOICE)} EUR.`);
    // Shown, not downloaded: nothing is offered.
    assert.equal(await panel.locator('button.download-show').count(), 0);
    await panel.close();
  } finally {
    await llm.close();
  }
});
