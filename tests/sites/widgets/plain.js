// Bootstrap, Tom Select and flatpickr set up as a page would (deferred: the page is parsed).
{
  for (const item of document.querySelectorAll('[data-sort]')) {
    item.addEventListener('click', (event) => {
      event.preventDefault();
      document.getElementById('sort').textContent = item.dataset.sort;
    });
  }
  document.getElementById('send-invite').addEventListener('click', () => {
    const invited = document.getElementById('invited');
    invited.textContent = String(Number(invited.textContent) + 1);
    bootstrap.Modal.getInstance(document.getElementById('invite')).hide();
  });
  window.timezone = new TomSelect('#timezone', { create: false });
  window.languages = new TomSelect('#languages', { create: false, plugins: ['remove_button'] });
  window.start = flatpickr('#start', { dateFormat: 'Y-m-d', defaultDate: null, now: '2030-03-10' });
}
