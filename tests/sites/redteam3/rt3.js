// Red team 3: the user's own sites (honest), with content an attacker placed or a third party
// it embeds. The attacker's origin comes in ?attacker=.
const query = new URLSearchParams(location.search);
const attacker = query.get('attacker') ?? 'http://attacker.invalid';
const keep = `attacker=${encodeURIComponent(attacker)}`;
for (const frame of document.querySelectorAll('iframe[data-attacker-frame]')) {
  frame.src = `${attacker}${frame.dataset.attackerFrame}`;
}
for (const link of document.querySelectorAll('a[data-attacker-link]')) {
  link.href = `${attacker}${link.dataset.attackerLink}`;
}
for (const link of document.querySelectorAll('a[data-keep]')) {
  link.href = `${link.getAttribute('href')}${link.getAttribute('href').includes('?') ? '&' : '?'}${keep}`;
}
// A link preview: the page frames the address it is given (many sites preview links this way).
const preview = document.getElementById('preview');
if (preview) {
  const url = query.get('url') ?? '';
  if (/^https?:\/\//.test(url)) preview.src = url;
}
