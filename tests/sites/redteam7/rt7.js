// Red team 7: the start site's pages (the user's own webmail, bank, forum, club site): honest
// pages with content a third party placed (an advertisement in a frame, a newsletter and its
// link). The attacker's origin comes in ?attacker=, the address of its other server in ?miner=.
const query = new URLSearchParams(location.search);
const attacker = query.get('attacker') ?? 'http://attacker.invalid';

for (const frame of document.querySelectorAll('iframe[data-attacker-frame]')) {
  frame.src = `${attacker}${frame.dataset.attackerFrame}`;
}
for (const frame of document.querySelectorAll('iframe[data-miner-frame]')) {
  frame.src = `${query.get('miner') ?? attacker}${frame.dataset.minerFrame}`;
}
for (const link of document.querySelectorAll('a[data-attacker-href]')) {
  link.href = `${attacker}${link.dataset.attackerHref}`;
}

// The webmail's title follows its unread count and, once the account has loaded, names it (as
// Gmail's does): opening a message marks it read, and the title is written again.
const ACCOUNT = 'ada.lovelace@private.example';
for (const link of document.querySelectorAll('a[data-marks-read]')) {
  link.addEventListener('click', () => { document.title = `Inbox (0) - ${ACCOUNT} - Mug Mail`; });
}

// The bank shows a new card's number drawn on a canvas, never as text of the page.
const CARD_NUMBER = '4539 1488 0343 6467';
for (const canvas of document.querySelectorAll('canvas[data-card]')) {
  const pen = canvas.getContext('2d');
  pen.fillStyle = '#1d3557';
  pen.fillRect(0, 0, canvas.width, canvas.height);
  pen.fillStyle = '#ffffff';
  pen.font = '26px monospace';
  pen.fillText(CARD_NUMBER, 24, 120);
}

// A newsletter's auction, shown in the webmail: its lots, each with its number (no word around
// it says it is private: a lot number, as a page's article ids and ISBNs are).
const MUGS = ['blue enamel', 'stoneware', 'porcelain', 'tin camping', 'glazed'];
const lots = document.getElementById('lots');
if (lots) {
  for (let i = 0; i < 450; i++) {
    const lot = document.createElement('li');
    lot.textContent = `Lot ${4820011 + i * 7919}: ${MUGS[i % MUGS.length]} mug`;
    lots.append(lot);
  }
}

// The club's FAQ: an entry per letter, each showing its answer when tapped.
const entries = document.getElementById('entries');
if (entries) {
  for (const c of 'abcdefghijklmnopqrstuvwxyz') {
    const row = document.createElement('p');
    row.style.margin = '0';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = `Entry ${c}`;
    const answer = document.createElement('span');
    answer.hidden = true;
    answer.textContent = ` Mugs whose name starts with ${c.toUpperCase()}: ask at the club.`;
    button.addEventListener('click', () => { answer.hidden = !answer.hidden; });
    row.append(button, answer);
    entries.append(row);
  }
}

// A long page (chapters), to be scrolled.
const chapters = document.getElementById('chapters');
if (chapters) {
  for (const c of 'abcdefghijklmnopqrstuvwxyz') {
    const p = document.createElement('p');
    p.textContent = `Chapter ${c}. About mugs.`;
    p.style.height = '200px';
    p.style.margin = '0';
    chapters.append(p);
  }
}

// An advertisement slot filled on the reader's first scroll (ads load late, so as not to slow
// the page down).
const slot = document.querySelector('[data-lazy-attacker-frame]');
if (slot) {
  addEventListener('scroll', () => {
    const frame = document.createElement('iframe');
    frame.title = 'Sponsor';
    frame.width = '300';
    frame.height = '7000';
    frame.style.border = '0';
    frame.style.display = 'block';
    frame.src = `${attacker}${slot.dataset.lazyAttackerFrame}`;
    slot.append(frame);
  }, { once: true });
}
