document.getElementById('contact').addEventListener('submit', (event) => {
  event.preventDefault();
  const field = (id) => document.getElementById(id).value;
  document.getElementById('sent').textContent = `Sent to support: ${field('name')} about ${field('topic')}: ${field('message')}`;
});
