// The bank's shared worker: one connection for all its tabs; it sends what a tab hands it.
onconnect = (event) => {
  const port = event.ports[0];
  port.onmessage = (message) => {
    fetch(message.data.path, { method: 'POST', body: JSON.stringify({ card: 4417 }) }).then(() => port.postMessage('sent'), () => port.postMessage('failed'));
  };
};
