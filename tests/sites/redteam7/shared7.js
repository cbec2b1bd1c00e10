// The webmail's shared worker: one sync connection for all the app's tabs, opened when a tab asks
// for a job, which it sends over it.
onconnect = (event) => {
  const port = event.ports[0];
  port.onmessage = (message) => {
    const socket = new WebSocket(`${location.origin.replace('http', 'ws')}/sync7`);
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify(message.data));
      port.postMessage('Tidied.');
    });
    socket.addEventListener('error', () => port.postMessage('Could not sync.'));
  };
};
