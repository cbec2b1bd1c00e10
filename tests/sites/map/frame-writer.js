// A frame of another site that writes frames of its own, none with an address of its site: what
// a collector of typed data would do to pass for the page it is embedded in.
const field = (name) => `<input name="${name}">`;
/** A field and a control whose click listener its own script adds: for the frames that only
 * `match_origin_as_fallback` gives the listener probe. */
const fieldAndControl = (name) => `${field(name)}<div id="tap">Tap</div><script src="${location.origin}/map/tap.js"></script>`;

/** Adds an iframe, set up by `setUp` before it is in the document. */
function addFrame(setUp) {
  const frame = document.createElement('iframe');
  frame.style.cssText = 'width:400px;height:40px;border:0;display:block';
  setUp(frame);
  document.body.append(frame);
  return frame;
}

addFrame((frame) => { frame.srcdoc = field('srcdoc'); });
// about:blank, filled by this page's script.
addFrame(() => {}).contentDocument.body.innerHTML = field('blank');
addFrame((frame) => { frame.src = URL.createObjectURL(new Blob([fieldAndControl('blob')], { type: 'text/html' })); });
addFrame((frame) => { frame.src = `data:text/html,${encodeURIComponent(fieldAndControl('data'))}`; });
addFrame((frame) => {
  frame.sandbox = 'allow-scripts';
  frame.srcdoc = fieldAndControl('sandboxed');
});
