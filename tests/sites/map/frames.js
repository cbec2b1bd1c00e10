// The cross-origin frame's origin comes in the query string (?other=http://localhost:PORT).
const other = new URLSearchParams(location.search).get('other');
if (other) {
  const frame = document.createElement('iframe');
  frame.src = `${other}/map/frame-outer.html`;
  frame.style.cssText = 'width:500px;height:260px;border:0';
  document.getElementById('slot').append(frame);
}
