// An infinite list: 20 more entries whenever the reader nears the bottom.
const feed = document.getElementById('feed');
let count = 0;
function more() {
  for (let i = 0; i < 20; i++) {
    const li = document.createElement('li');
    li.style.height = '40px';
    li.textContent = `Entry ${++count}`;
    feed.append(li);
  }
}
more();
addEventListener('scroll', () => {
  if (innerHeight + scrollY > document.documentElement.scrollHeight - 200) more();
}, { passive: true });
