// A long list page: ?rows=N rows of ordinary markup, as the corpus's synthetic rows-N pages
// (shared/corpus/synthetic/make.py), each with a link, a button, a quantity field and prose.
const count = Number(new URLSearchParams(location.search).get('rows')) || 1500;
const rows = [];
for (let i = 0; i < count; i++) {
  rows.push(`<div class="row" id="r${i}"><div class="head"><span>Item ${i}</span> `
    + `<a href="#item-${i}">Open item ${i}</a> <button type="button">Add ${i}</button> `
    + `<input name="qty${i}" placeholder="Qty ${i}"></div><div class="body"><p>Description of item ${i}, with some ordinary prose.</p>`
    + `<ul><li>alpha ${i}</li><li class="cta">beta ${i}</li><li>gamma ${i}</li></ul></div></div>`);
}
const list = document.getElementById('rows');
list.innerHTML = rows.join('\n');
// Each button counts its presses (the test site's CSP allows no inline handlers).
list.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  if (button) button.dataset.n = (Number(button.dataset.n) || 0) + 1;
});
document.title = `${count} rows`;
