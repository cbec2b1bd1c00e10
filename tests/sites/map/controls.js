// Listeners added by page script (not inline): the map must still see these as clickable.
document.getElementById('menu').addEventListener('click', () => {
  document.getElementById('menu').textContent = 'Menu opened';
});
