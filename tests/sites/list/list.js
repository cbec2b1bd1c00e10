// A paginated catalogue: ?page=N shows items 20 at a time, with Previous and Next links.

import { ITEMS, PER_PAGE } from './items.js';

const pages = Math.ceil(ITEMS.length / PER_PAGE);
const page = Math.min(Math.max(Number(new URLSearchParams(location.search).get('page')) || 1, 1), pages);
document.getElementById('page').textContent = `Page ${page} of ${pages}`;
for (const item of ITEMS.slice((page - 1) * PER_PAGE, page * PER_PAGE)) {
  const li = document.createElement('li');
  li.textContent = `#${item.number} · ${item.name} · ${item.price}`;
  document.getElementById('items').append(li);
}
const pager = document.getElementById('pager');
for (const [text, target] of [['Previous', page - 1], ['Next', page + 1]]) {
  if (target < 1 || target > pages) continue;
  const link = document.createElement('a');
  link.href = `?page=${target}`;
  link.textContent = text;
  pager.append(link, ' ');
}
