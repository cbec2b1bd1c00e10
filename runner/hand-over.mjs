// The runner's side of a hand-over: the task needs someone (a question, a sign-in, a CAPTCHA, a
// one-time code). The question is printed and the answer read from standard input, a line at a
// time: an empty line or any text continues (the text goes to the agent as what the user said),
// "stop" stops the task. When standard input has ended (closed, /dev/null, a pipe with no more
// lines) or --no-input is given, no one is there: the task ends, and the runner exits with
// NO_ONE_THERE.

import { createInterface } from 'node:readline';

/** The runner's exit status when the task needed someone and no one answered. */
export const NO_ONE_THERE = 3;

/** The lines of standard input, one per call; `null` once it has ended. Read from the first call on. */
function lineReader(input) {
  let reader = null;
  const lines = [];
  const waiting = [];
  let ended = false;
  const start = () => {
    reader = createInterface({ input, terminal: false });
    reader.on('line', (line) => (waiting.length ? waiting.shift()(line) : lines.push(line)));
    reader.on('close', () => {
      ended = true;
      while (waiting.length) waiting.shift()(null);
    });
  };
  return () => {
    if (!reader) start();
    if (lines.length) return Promise.resolve(lines.shift());
    if (ended) return Promise.resolve(null);
    return new Promise((resolve) => { waiting.push(resolve); });
  };
}

/**
 * `onHandOver` for runTask, and whether a hand-over went unanswered. Prompts go to `prompt`
 * (standard output, or standard error with --json, whose standard output is events only).
 */
export function handOvers({ noInput, headed, input = process.stdin, prompt }) {
  const nextLine = lineReader(input);
  const state = { unanswered: false };
  state.onHandOver = async (event) => {
    if (noInput) {
      prompt('  no one is there to take over (--no-input): the task ends\n');
      state.unanswered = true;
      return { decision: 'unanswered' };
    }
    const where = event.reason === 'ask' || headed ? '' : ' (the browser is headless: run with --headed to act in the tab)';
    prompt(`  Take over in the browser${where}, then press Enter to continue, or type an answer for the agent; "stop" stops the task:\n> `);
    const line = await nextLine();
    if (line === null) {
      prompt('\n  standard input has ended: no one is there to take over, the task ends\n');
      state.unanswered = true;
      return { decision: 'unanswered' };
    }
    if (line.trim().toLowerCase() === 'stop') return { decision: 'stop' };
    return { decision: 'continue', note: line.trim() };
  };
  return state;
}
