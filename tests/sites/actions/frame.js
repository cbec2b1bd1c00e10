document.getElementById('frame-button').addEventListener('click', () => {
  const clicks = document.getElementById('frame-clicks');
  clicks.textContent = String(Number(clicks.textContent) + 1);
});
