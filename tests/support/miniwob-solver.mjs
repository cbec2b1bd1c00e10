// A scripted model that solves a few MiniWoB++ families the way a model reads them: from the
// instruction in its task and the page map of each request, one action a step, every index read
// from the map it is sent (nothing known in advance: the seed makes the words and the layout). For
// startLlmServer(solveMiniwob): it replies only what the navigator's schema allows (the server
// checks each reply against the request's schema). A task it has no plan for is answered with
// done(success: false), so the run fails rather than the test hanging.

/** The task's words, as the first "Your task:" message gives them. */
const taskOf = (request) => request.messages.find((m) => m.role === 'user' && m.content.startsWith('Your task: '))
  ?.content.slice('Your task: '.length).split('\n')[0] ?? '';

/** The page the request shows (its last user message) and the step it is at. */
const stateOf = (request) => request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
const stepOf = (state) => Number(state.match(/^(?:Current step: |Step )(\d+)/m)?.[1] ?? 1);

/** The map's interactive lines: { index, tag, attrs, text }. */
function elements(state) {
  return state.split('\n').map((line) => line.match(/^\t*\*?\[(\d+)\]([\w-]+)((?: [\w-]+=(?:"[^"]*"|\S+))*)(?: (.*))?$/)).filter(Boolean)
    .map(([, index, tag, attrs, text]) => ({ index: Number(index), tag, attrs, text: (text ?? '').trim() }));
}

/** The index of the first element that `fits`; throws with the map when there is none. */
function find(state, what, fits) {
  const found = elements(state).find(fits);
  if (!found) throw new Error(`no ${what} in the page map:\n${state}`);
  return found.index;
}

const said = (text) => (e) => e.text === text || e.attrs.includes(`"${text}"`) || e.attrs.includes(`=${text} `) || e.attrs.endsWith(`=${text}`);
const button = (state, text) => find(state, `button "${text}"`, (e) => /^(button|input)$/.test(e.tag) && said(text)(e));
// MiniWoB++'s links are often spans with a click handler: any element with exactly that text.
const link = (state, text) => find(state, `link "${text}"`, (e) => e.text === text);
const field = (state, nth = 0) => elements(state).filter((e) => e.tag === 'input' && /type=(text|password)/.test(e.attrs))[nth]?.index
  ?? find(state, `text field ${nth + 1}`, () => false);

/** The families it knows: the instruction's pattern and the plan it makes of the page. */
const FAMILIES = [
  [/^Click on the "(.+)" button\.$/, (state, [, name]) => [{ click_element: { index: button(state, name) } }]],
  [/^Click on the link "(.+)"\.$/, (state, [, name]) => [{ click_element: { index: link(state, name) } }]],
  [/^Click on Tab #(\d+)\.$/, (state, [, n]) => [{ click_element: { index: find(state, `Tab #${n}`, (e) => e.text === `Tab #${n}`) } }]],
  [/^Enter "(.+)" into the text field and press Submit\.$/, (state, [, text]) => [
    { input_text: { index: field(state), text } },
    { click_element: { index: button(state, 'Submit') } },
  ]],
  [/^Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.$/, (state, [, user, password]) => [
    { input_text: { index: field(state, 0), text: user } },
    { input_text: { index: field(state, 1), text: password } },
    { click_element: { index: button(state, 'Login') } },
  ]],
  [/^Select (.+) from the list and click Submit\.$/, (state, [, item]) => [
    { select_option: { index: find(state, 'list', (e) => e.tag === 'select'), text: item } },
    { click_element: { index: button(state, 'Submit') } },
  ]],
  [/^Select (.+) and click Submit\.$/, (state, [, list]) => [
    ...(list === 'nothing' ? [] : list.split(/, | and /)).map((word) => ({
      click_element: { index: find(state, `checkbox "${word}"`, (e) => e.text === word || (e.tag === 'input' && said(word)(e))) },
    })),
    { click_element: { index: button(state, 'Submit') } },
  ]],
];

/** The reply to one navigator request: the plan's action for this step, then done. */
export function solveMiniwob(request) {
  const task = taskOf(request);
  const state = stateOf(request);
  const family = FAMILIES.find(([pattern]) => pattern.test(task));
  if (!family) return { actions: [{ done: { text: `No plan for "${task}"`, success: false } }] };
  const plan = family[1](state, task.match(family[0]));
  const action = plan[stepOf(state) - 1];
  return action
    ? { next_goal: `step ${stepOf(state)} of ${plan.length}`, actions: [action] }
    : { actions: [{ done: { text: 'Done as the instruction says.', success: true } }] };
}
