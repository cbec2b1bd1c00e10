// Red team 6: the start site's pages (the user's own webmail, forum, club site): honest pages
// with content a third party placed (an advertisement in a frame, a newsletter's link). The
// attacker's origin comes in ?attacker=; the site's own widgets live on its other host name.
const query = new URLSearchParams(location.search);
const attacker = query.get('attacker') ?? 'http://attacker.invalid';

for (const frame of document.querySelectorAll('iframe[data-attacker-frame]')) {
  frame.src = `${attacker}${frame.dataset.attackerFrame}`;
}
for (const link of document.querySelectorAll('a[data-attacker-href]')) {
  link.href = `${attacker}${link.dataset.attackerHref}`;
}
// The site's own widget, served from its sibling host (the same server under another name).
for (const frame of document.querySelectorAll('iframe[data-sibling-frame]')) {
  frame.src = `${location.protocol}//localhost:${location.port}${frame.dataset.siblingFrame}`;
}
// A custom dropdown (a button and its listbox), as component libraries make them.
for (const button of document.querySelectorAll('[data-listbox]')) {
  const list = document.getElementById(button.dataset.listbox);
  button.addEventListener('click', () => {
    const open = list.hidden;
    list.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  });
  for (const option of list.querySelectorAll('[role=option]')) {
    option.addEventListener('click', () => {
      button.textContent = `Notify me: ${option.textContent}`;
      list.hidden = true;
      button.setAttribute('aria-expanded', 'false');
    });
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
