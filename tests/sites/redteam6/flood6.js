// A "wall of readers": 480 made-up e-mail addresses in six paragraphs of under 1000 characters
// each (what the page map keeps of one element), all shown at once in a small font.
const wall = document.getElementById('wall');
for (let p = 0; p < 6; p += 1) {
  const para = document.createElement('p');
  const addresses = [];
  for (let i = 0; i < 80; i += 1) addresses.push(`m${String(p * 80 + i).padStart(3, '0')}@x.io`);
  para.textContent = addresses.join(' ');
  wall.append(para);
}
