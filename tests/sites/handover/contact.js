// The form sends only once the check in the CAPTCHA frame was passed (the frame tells the page).
let passed = false;
window.addEventListener('message', (event) => {
  if (event.data === 'captcha-passed') passed = true;
});
document.getElementById('contact').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!passed) return;
  event.target.hidden = true;
  document.getElementById('sent').hidden = false;
});
