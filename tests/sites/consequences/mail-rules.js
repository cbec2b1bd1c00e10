// The webmail's own script: a rule is saved through its API.
document.getElementById('create').addEventListener('click', () => {
  const to = document.getElementById('forward').value;
  const xhr = new XMLHttpRequest();
  xhr.open('POST', '/api/rules');
  xhr.setRequestHeader('content-type', 'application/json');
  xhr.onload = () => { document.getElementById('rules').textContent = `Forwarding all mail to ${to}.`; };
  xhr.onerror = () => { document.getElementById('rules').textContent = 'The rule could not be saved.'; };
  xhr.send(JSON.stringify({ forward: to }));
});
