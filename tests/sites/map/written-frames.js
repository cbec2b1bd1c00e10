// Frames the page of another site writes itself: its origin comes in the query string
// (?other=http://localhost:PORT).
const other = new URLSearchParams(location.search).get('other');
const frame = document.createElement('iframe');
frame.src = `${other}/map/frame-writer.html`;
frame.style.cssText = 'width:600px;height:420px;border:0;display:block';
document.getElementById('slot').append(frame);
