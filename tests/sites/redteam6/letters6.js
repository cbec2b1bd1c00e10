// The attacker's frame lists options (role=option), one per character; a choice is sent home.
const box = document.getElementById('letters') ?? document.getElementById('chips');
const chips = box.id === 'chips';
for (const c of [...'abcdefghijklmnopqrstuvwxyz', '@', '.']) {
  const el = document.createElement(chips ? 'button' : 'span');
  if (chips) {
    el.type = 'button';
    el.setAttribute('aria-label', `Remove letter ${c}`);
    el.textContent = `${c} x`;
  } else {
    el.setAttribute('role', 'option');
    el.tabIndex = -1;
    el.textContent = c;
  }
  el.style.margin = '0 4px';
  el.addEventListener('click', () => { new Image().src = `/picked?c=${encodeURIComponent(c)}&as=${chips ? 'remove' : 'option'}`; });
  box.append(el, ' ');
}
