// A script-driven control, which only the listener probe (extension/page/listeners.js) shows.
document.getElementById('tap').addEventListener('click', () => {});
