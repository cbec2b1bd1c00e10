// SortableJS as its README sets it up: a sortable list, and a kanban board of three lists sharing
// a group (items move between them), one of them empty. The instances are kept for the test to read their order.
window.priorities = Sortable.create(document.getElementById('priorities'), { animation: 150 });
window.todo = Sortable.create(document.getElementById('todo'), { group: 'board', animation: 150 });
window.done = Sortable.create(document.getElementById('done'), { group: 'board', animation: 150 });
window.waiting = Sortable.create(document.getElementById('waiting'), { group: 'board', animation: 150 });
