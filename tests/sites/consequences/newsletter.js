// The newsletter's own script: the address goes to its API.
document.getElementById('subscribe').addEventListener('click', async () => {
  const email = document.getElementById('email').value;
  try {
    await fetch('/api/subscribe', { method: 'POST', body: new URLSearchParams({ email }) });
    document.getElementById('status').textContent = `Subscribed ${email}.`;
  } catch {
    document.getElementById('status').textContent = 'Could not subscribe. Try again.';
  }
});
