// The attacker's frame reports each hover, scroll and look at its options.
document.getElementById('hover').addEventListener('mouseover', () => { new Image().src = '/hover?c=a'; });
document.getElementById('box').addEventListener('scroll', (e) => { new Image().src = `/scrolled?y=${Math.round(e.target.scrollTop)}`; }, { once: true });
document.getElementById('pick').addEventListener('focus', () => { new Image().src = '/options'; });
