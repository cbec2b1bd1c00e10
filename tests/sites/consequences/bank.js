// A bank's own script: the button sends the transfer to the bank's API (JSON by fetch) and says
// what came back. The bank's server records the request; nothing else does.
document.getElementById('transfer').addEventListener('click', async () => {
  const status = document.getElementById('status');
  const transfer = { payee: document.getElementById('payee').value, amount: document.getElementById('amount').value };
  try {
    await fetch('/api/transfer', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(transfer) });
    status.textContent = `Sent £${transfer.amount} to ${transfer.payee}.`;
  } catch {
    status.textContent = 'The transfer could not be sent. Try again.';
  }
});
