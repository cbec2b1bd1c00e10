// Notes whether the last press on the page was real input (trusted) or synthetic, for the tests
// (in a variable: a change to the DOM would be a change the drag made).
document.addEventListener('pointerdown', (event) => { window.pressTrusted = event.isTrusted; }, true);
