// Red team 4: a shop's pages (the start site); links to the partner (the attacker) come from ?attacker=.
const query = new URLSearchParams(location.search);
const attacker = query.get('attacker') ?? 'http://attacker.invalid';
for (const link of document.querySelectorAll('a[data-attacker-link]')) {
  link.href = `${attacker}${link.dataset.attackerLink}${link.dataset.attackerLink.includes('?') ? '&' : '?'}shop=${encodeURIComponent(location.origin)}`;
}
