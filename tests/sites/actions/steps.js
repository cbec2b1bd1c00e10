// Counters in localStorage record what really happened, whatever the agent reports.
const bump = (key) => localStorage.setItem(key, String(Number(localStorage.getItem(key) ?? 0) + 1));
document.getElementById('later').addEventListener('click', () => bump('later'));
document.getElementById('buy').addEventListener('click', () => bump('buy'));
document.getElementById('open-dialog').addEventListener('click', () => { document.getElementById('dialog').hidden = false; });
document.getElementById('close-dialog').addEventListener('click', () => { document.getElementById('dialog').hidden = true; });

// Items re-rendered from scratch: identical-looking, but new elements.
function renderItems() {
  document.getElementById('items').replaceChildren(...['Alpha', 'Beta'].map((name) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.textContent = `Delete ${name}`;
    button.addEventListener('click', () => bump(`delete-${name}`));
    li.append(button);
    return li;
  }));
}
renderItems();
document.getElementById('refresh').addEventListener('click', renderItems);

// A cross-origin frame, whose origin comes in the query string (?other=http://localhost:PORT).
const other = new URLSearchParams(location.search).get('other');
if (other) document.getElementById('frame').src = `${other}/actions/frame.html`;
