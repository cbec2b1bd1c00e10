// The README and docs/ link to each other by relative paths and heading anchors: every such link
// must reach a file that exists and, with an anchor, a heading in it (as GitHub names headings).
// No browser needed; it runs with the end-to-end suite so that a moved or renamed page is noticed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];

/** The text outside fenced code blocks, where links and headings are read. */
const prose = (file) => readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor for each heading of a markdown file. */
function anchors(file) {
  return new Set([...prose(file).matchAll(/^#+\s+(.*)$/gm)].map(([, heading]) =>
    heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-')));
}

/** Every relative link of a page as [link, the file it reaches, its anchor or ''] */
function relativeLinks(page) {
  return [...prose(page).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, link]) => link)
    .filter((link) => !/^[a-z]+:/i.test(link))
    .map((link) => {
      const [path, anchor = ''] = link.split('#');
      return [link, path ? resolve(dirname(page), path) : page, anchor];
    });
}

test('every relative link of the README and docs/ reaches a file and, with an anchor, its heading', () => {
  const broken = [];
  for (const page of PAGES) {
    for (const [link, target, anchor] of relativeLinks(page)) {
      const where = `${relative(ROOT, page)}: ${link}`;
      if (!existsSync(target)) broken.push(`${where} (no such file)`);
      else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(`${where} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the check reads what it checks: a known heading is found by its anchor, an unknown one is not, and the README\'s link to architecture.md is seen', () => {
  const page = join(ROOT, 'docs', 'architecture.md');
  assert.ok(anchors(page).has('the-file-tree'), 'a heading of architecture.md is found by its anchor');
  assert.ok(!anchors(page).has('no-such-heading'));
  assert.ok(relativeLinks(join(ROOT, 'README.md')).some(([, target]) => target === page), 'the README links to architecture.md');
});
