// Native HTML5 drags under trusted input. The debugger's mouse can press and move, but once the
// page lets a drag begin (SortableJS makes its item draggable on the press) the browser's own
// drag loop would take the moves over, and the debugger cannot drive that. With drags intercepted
// (`Input.setInterceptDrags`, which the core's drag sends first) the browser hands over the drag's
// data instead (`Input.dragIntercepted`); from then on the drag's moves and release go on as the
// drag events the browser would have sent (`Input.dispatchDragEvent`), with that data.

/** The data of the drag intercepted in each tab, until it is dropped. */
const intercepted = new Map();

chrome.debugger?.onEvent.addListener((source, method, params) => {
  if (method === 'Input.dragIntercepted') intercepted.set(source.tabId, { data: params.data, entered: false });
});
chrome.debugger?.onDetach.addListener((source) => intercepted.delete(source.tabId));

/** The commands to send for `command` in `tabId`: itself, or, while a drag intercepted there goes
 * on, the drag event a move of the held button is; a release drops, then releases (the drag's
 * source then gets its dragend, as Puppeteer's drag and drop does it). */
export function duringDrag(tabId, command) {
  const { method, params } = command;
  // A new drag (or its end) forgets one left over from a drag that failed half way.
  if (method === 'Input.setInterceptDrags') intercepted.delete(tabId);
  const drag = intercepted.get(tabId);
  if (!drag || method !== 'Input.dispatchMouseEvent') return [command];
  const at = { x: params.x, y: params.y, data: drag.data };
  if (params.type === 'mouseReleased') {
    intercepted.delete(tabId);
    return [{ method: 'Input.dispatchDragEvent', params: { type: 'drop', ...at } }, command];
  }
  if (params.type !== 'mouseMoved' || !params.buttons) return [command];
  const type = drag.entered ? 'dragOver' : 'dragEnter';
  drag.entered = true;
  return [{ method: 'Input.dispatchDragEvent', params: { type, ...at } }];
}
