// Plain HTML5 drag and drop, no library: photos carry their name in the DataTransfer, the trash
// accepts them (dragover cancelled) and reads the name from the drop.
for (const photo of document.querySelectorAll('[data-photo]')) {
  photo.addEventListener('dragstart', (event) => {
    event.dataTransfer.setData('text/plain', photo.dataset.photo);
    event.dataTransfer.effectAllowed = 'move';
  });
}
const bin = document.getElementById('bin');
bin.addEventListener('dragover', (event) => event.preventDefault());
bin.addEventListener('drop', (event) => {
  event.preventDefault();
  const name = event.dataTransfer.getData('text/plain');
  document.getElementById('deleted').textContent = name;
  document.querySelector(`[data-photo="${name}"]`)?.remove();
});
