// Notes whether the last press on the page was real input (trusted) or synthetic, for the tests.
document.addEventListener('pointerdown', (event) => { document.documentElement.dataset.pressTrusted = String(event.isTrusted); }, true);
