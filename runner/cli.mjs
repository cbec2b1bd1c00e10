// The headless runner: ./build.sh run --task "TEXT" [--url URL] --base-url URL --model NAME [options],
//   or --workflow FILE [--param NAME=VALUE]... instead of --task
//   (see USAGE below; the options mirror the settings page).
// Exit status: 0 when the task succeeded, 1 when it failed, 2 on a usage error, 3 when the task
// needed someone (a question, a sign-in, a CAPTCHA) and no one answered on standard input.
// Consequential actions, and the user's data going to a site they did not choose, are refused
// unless --approve is given (no one is there to ask).

import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { launchAgentBrowser, attachFiles, applySettings, settingsProblem, openTarget, openPanel, runTask, proposeWorkflow, saveFilm } from './launch.mjs';
import { AGENT_OPTIONS, FLAGS, agentSettings, wholeFlag } from './agent-flags.mjs';
import { median } from './eval/stats.mjs';
import { handOvers, NO_ONE_THERE } from './hand-over.mjs';

const USAGE = `usage: ./build.sh run --task "TEXT" [--url URL] [--provider P] [--base-url URL] --model NAME
                   [--api-key-env VAR] [--max-steps N] [--planner-model NAME] [--validator-model NAME]
                   [--planning-interval N] [--memory-interval N] [--max-input-tokens N] [--request-style S]
                   [--no-validator] [--vision] [--site-plan MODE] [--record FILE] [--gif FILE] [--json] [--headed]
                   [--approve] [--no-input] [--save-workflow FILE] [--output-schema FILE] [--file PATH]...
       ./build.sh run --workflow FILE [--param NAME=VALUE]... [the same options]

  --task TEXT         what the agent should do
  --workflow FILE     run a saved workflow instead (its recorded steps run without the model
                      where the page still matches); --param NAME=VALUE gives a parameter a new
                      value (others keep the recorded one)
  --save-workflow FILE  after a successful run, write it as a workflow, with a parameter proposed
                      for each literal input (text typed, option chosen, address opened, search)
  --output-schema FILE  a JSON Schema for the answer: the agent also gives it as data in that
                      shape, checked against the schema, printed as JSON after "Data:" (with
                      --json, the "answer" event's "data")
  --url URL           page to start on (default: about:blank)
  --file PATH         attach a file to the task (repeatable): the agent may upload it with
                      upload_file; at most 10 files, 10 MB each, 25 MB together
  --provider P        openai, anthropic, gemini, azure or openai-compatible (the default)
  --base-url URL      the API root; required for openai-compatible servers, optional for the others
  --model NAME        model name, e.g. gpt-4o-mini
  --api-key-env VAR   environment variable holding the API key (never pass keys on the command line)
  --max-steps N       step limit (default 25)
  --planner-model NAME    the planner's model (default: --model)
  --validator-model NAME  the validator's model (default: --model)
  --planning-interval N   plan at the first step and every N steps; 0 turns the planner off (default 3)
  --memory-interval N     summarise older steps every N steps; 0: only when the history gets long (default 10)
  --max-input-tokens N    the token budget of each request (default: the model's context window
                          less room for the reply); refused if below what the requests need
  --request-style S       auto (the default: compact for budgets of 8192 or less), full or compact
                          instructions with each request
  --no-validator      report a claimed success without the validator's second look
  --vision            show the model a screenshot each step
  --site-plan MODE    off (the default: ask only when the user's data would go to a site not chosen),
                      ask (tell about sites outside the planner's plan) or strict (ask before them)
  --record FILE       write the run's record (each step's URL, decisions, actions, tokens per
                      agent, time per phase and cost; secrets redacted) to FILE as JSON
  --gif FILE          write a film of the run to FILE as an animated GIF: each step's screenshot,
                      the element acted on outlined, the step's goal as caption (secrets redacted,
                      fields holding one blacked out); at most 100 frames, 640 px wide, 8 MB
  --json              print one JSON object per event
  --headed            show the browser window
  --approve           allow consequential actions (buying, sending, deleting...), the user's data
                      going to sites the task did not name, and sites outside the plan, without
                      asking; by default the runner refuses them, as no one is there to ask.
                      A secret never goes outside the sites listed for it, even with --approve
  --no-input          when the task needs someone (a question, a sign-in, a CAPTCHA, a code), end it
                      (exit status 3) instead of asking on standard input; without it, the question
                      is printed and a line read: Enter or an answer continues, "stop" stops, and an
                      ended standard input (closed, /dev/null) ends the task the same way`;

function usageError(message) {
  process.stderr.write(`error: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function parse(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...AGENT_OPTIONS,
        task: { type: 'string' },
        url: { type: 'string', default: 'about:blank' },
        'max-steps': { type: 'string', default: '25' },
        record: { type: 'string' },
        gif: { type: 'string' },
        workflow: { type: 'string' },
        param: { type: 'string', multiple: true, default: [] },
        file: { type: 'string', multiple: true, default: [] },
        'save-workflow': { type: 'string' },
        'output-schema': { type: 'string' },
        json: { type: 'boolean', default: false },
        headed: { type: 'boolean', default: false },
        'no-input': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    usageError(err.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.task !== undefined && values.workflow) usageError('give --task or --workflow, not both');
  if (!values.task?.trim() && !values.workflow) usageError('--task is required (or --workflow)');
  const settings = { ...agentSettings(values, usageError), maxSteps: wholeFlag(values, 'max-steps', 1, usageError), film: Boolean(values.gif) };
  if (values.workflow && values.file.length) usageError('--file attaches files to a --task');
  if (values.workflow && values['output-schema']) usageError('--output-schema goes with --task, not --workflow');
  const request = values.workflow ? workflowRequest(values) : { type: 'start_task', task: values.task, ...outputSchema(values) };
  return { ...values, settings, request };
}

/** `{outputSchema}` read from --output-schema's file (the core checks the schema itself), or nothing. */
function outputSchema(values) {
  const file = values['output-schema'];
  if (!file) return {};
  try {
    return { outputSchema: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (err) {
    return usageError(`cannot read the output schema ${file}: ${err.message}`);
  }
}

/** The request that runs `--workflow` with the `--param` values (the core checks both). */
function workflowRequest(values) {
  let workflow;
  try {
    workflow = JSON.parse(readFileSync(values.workflow, 'utf8'));
  } catch (err) {
    usageError(`cannot read the workflow ${values.workflow}: ${err.message}`);
  }
  const params = {};
  for (const pair of values.param) {
    const at = pair.indexOf('=');
    if (at < 1) usageError(`--param takes NAME=VALUE, not "${pair}"`);
    params[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { type: 'run_workflow', workflow, values: params };
}

/** The agent's own time per step, outside the model (page map, actions, settling, checkpoint). */
function agentTimeLine(steps) {
  const ms = (pick) => Math.round(median(steps.map((step) => pick(step.timing))));
  return `Time per step outside the model: median ${ms((t) => t.step_ms - t.model_ms)} ms `
    + `(page map ${ms((t) => t.page_map_ms)} ms, actions and settling ${ms((t) => t.actions_ms)} ms) over ${steps.length} steps`;
}

const SPLIT_PARTS = ['instructions', 'schema', 'task', 'history', 'plan', 'state_header', 'page_lines', 'screenshot'];

/** The navigator's requests: their median size and what it is made of, with their style. */
function requestSizeLine(steps) {
  const requests = steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator');
  if (!requests.length) return null;
  const ms = (pick) => Math.round(median(requests.map(pick)));
  const parts = SPLIT_PARTS.map((part) => `${part.replace('_', ' ')} ${ms((r) => r.split[part])}`);
  return `Tokens per navigator request (${requests[0].style}): median ${ms((r) => r.tokens)} (${parts.join(', ')})`;
}

/** One readable line per event. */
function describe(event) {
  switch (event.type) {
    case 'task_started': return `Task: ${event.task}`;
    case 'task_resumed': return `Resumed at step ${event.step} after the extension's background worker restarted.`;
    case 'step_started': return `Step ${event.step}/${event.max_steps}: thinking…`;
    case 'step': {
      const lines = [`Step ${event.step}/${event.max_steps}: ${event.next_goal || '(no goal given)'}`];
      if (event.evaluation) lines.push(`  evaluation: ${event.evaluation}`);
      for (const a of event.actions) lines.push(`  ${a.ok ? '✓' : '✗'} ${a.name}: ${a.outcome}`);
      return lines.join('\n');
    }
    case 'answer': return `Data:\n${JSON.stringify(event.data, null, 2)}`;
    case 'result': return `${event.success ? 'Answer' : 'Not done'}: ${event.text}`;
    case 'error': return `Error: ${event.message}`;
    case 'warning': return `Warning: ${event.message}`;
    case 'usage': return null; // Summed up at the end.
    case 'run_recorded': return null; // Written to --record's file.
    case 'model_output': return null; // Streamed text; the step says what was decided.
    case 'paused': return `Paused at step ${event.step}.`;
    case 'resumed': return `Resumed at step ${event.step}.`;
    case 'plan': return `Plan: ${event.progress}${event.next_steps.map((s, i) => `\n  ${i + 1}. ${s}`).join('')}`;
    case 'memory': return `Memory: older steps summarised (${event.tokens_before} → ${event.tokens_after} tokens)`;
    case 'validation': return `${event.valid ? 'Checked' : 'Not accepted yet'}: ${event.reason}`;
    case 'approval_needed': return `Approval needed: ${event.question}`;
    case 'hand_over_needed': return `The agent needs you (${event.reason}): ${event.question}\n  page: ${event.url}`;
    case 'stopped': return `Stopped after ${event.steps} steps.`;
    default: return null;
  }
}

async function run(agent, options) {
  const { settings } = options;
  // Refused before any step, as the settings page would refuse it.
  const problem = await settingsProblem(agent, settings);
  if (problem) {
    const flag = FLAGS[problem.field] ? ` (${FLAGS[problem.field]})` : '';
    process.stderr.write(`error: ${problem.message}${flag}\n`);
    return 2;
  }
  await applySettings(agent, settings);
  const { tabId } = await openTarget(agent, options.url);
  const panel = await openPanel(agent, tabId);
  let usage = null;
  let record = null;
  let chat = null;
  const prompt = (text) => (options.json ? process.stderr : process.stdout).write(text);
  const handOver = handOvers({ noInput: options['no-input'], headed: options.headed, prompt });
  const end = await runTask(panel, {
    request: options.request,
    tabId,
    onEvent(event) {
      if (event.type === 'usage') usage = event;
      if (event.type === 'run_recorded') {
        record = event.record;
        chat = event.chat;
        if (options.record) writeFileSync(options.record, `${JSON.stringify(record, null, 2)}\n`);
      }
      const line = options.json ? JSON.stringify(event) : describe(event);
      if (line) process.stdout.write(`${line}\n`);
    },
    onApproval(event) {
      if (!options.json) process.stdout.write(`  ${options.approve ? 'allowed (--approve)' : 'refused (use --approve to allow)'}\n`);
      return options.approve;
    },
    onHandOver: handOver.onHandOver,
  });
  if (usage && !options.json) {
    const cost = usage.cost === null ? '' : `, $${usage.cost.toFixed(4)}`;
    process.stdout.write(`Tokens: ${usage.input_tokens} in, ${usage.output_tokens} out${cost}\n`);
  }
  if (record?.steps.length && !options.json) {
    if (options.workflow) process.stdout.write(`Steps run without the model: ${record.replayed_steps} of ${record.steps.length}\n`);
    process.stdout.write(`${agentTimeLine(record.steps)}\n`);
    const sizes = requestSizeLine(record.steps);
    if (sizes) process.stdout.write(`${sizes}\n`);
  }
  if (options.gif) {
    const bytes = await saveFilm(agent, chat, record, options.gif);
    if (!options.json) process.stdout.write(bytes === null ? 'No film: no step had a screenshot.\n' : `Film written to ${options.gif} (${bytes} bytes)\n`);
  }
  const succeeded = end.type === 'result' && end.success;
  if (succeeded && options['save-workflow'] && record) {
    const workflow = await proposeWorkflow(agent, record);
    writeFileSync(options['save-workflow'], `${JSON.stringify(workflow, null, 2)}\n`);
    const params = workflow.params.map((p) => `${p.name}=${JSON.stringify(p.value)}`).join(', ') || 'none';
    process.stdout.write(`Workflow written to ${options['save-workflow']} (parameters: ${params})\n`);
  }
  if (handOver.unanswered && end.type === 'error') return NO_ONE_THERE;
  return succeeded ? 0 : 1;
}


const options = parse(process.argv.slice(2));
// Read before the browser starts: a file missing or too large is said at once.
if (options.file.length) options.request.files = await attachFiles(options.file).catch((err) => usageError(err.message));
const agent = await launchAgentBrowser({ headless: !options.headed });
let exitCode = 1;
try {
  exitCode = await run(agent, options);
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`);
} finally {
  await agent.close();
}
process.exit(exitCode);
