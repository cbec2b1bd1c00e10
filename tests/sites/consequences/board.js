// A kanban board on SortableJS, as its README sets one up: a card moved to another column is
// saved through the board's API (PATCH), which records it.
const save = (event) => fetch(`/api/cards/${event.item.dataset.id}`, {
  method: 'PATCH',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ column: event.to.id }),
}).catch(() => {});
window.todo = Sortable.create(document.getElementById('todo'), { group: 'board', animation: 150, onAdd: save });
window.done = Sortable.create(document.getElementById('done'), { group: 'board', animation: 150, onAdd: save });
