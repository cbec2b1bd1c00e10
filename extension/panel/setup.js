// The first-run setup: with no model chosen yet, the panel offers one in a few clicks instead of
// the chat. Chrome's built-in model comes first where the browser has it; model servers on this
// computer are found for the user (the core knows where they listen and explains a server that
// refuses the extension); a cloud provider needs a key and a model. The connection is tested
// before anything is saved; the worker checks and saves.

import { said, t } from '../shared/i18n.js';
import { element, button } from '../shared/dom.js';
import { ask, onChanged } from '../shared/worker.js';
import { BUILT_IN_SETTINGS } from '../shared/built-in-model.js';
import { builtInItem } from './built-in-setup.js';

const section = document.getElementById('setup');
const localButton = document.getElementById('setup-local');
const cloudButton = document.getElementById('setup-cloud');
const localStep = document.getElementById('setup-local-step');
const localStatus = document.getElementById('setup-local-status');
const serverList = document.getElementById('setup-servers');
const lookAgain = document.getElementById('setup-look-again');
const cloudStep = document.getElementById('setup-cloud-step');
const provider = document.getElementById('setup-provider');
const keyField = document.getElementById('setup-key');
const modelField = document.getElementById('setup-model');
const cloudStatus = document.getElementById('setup-cloud-status');

/** A sensible first model per provider (the settings page offers the whole list). */
const FIRST_MODEL = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

const needsSetup = (settings) => !settings?.model?.trim();

function say(status, text, error = false) {
  status.textContent = text;
  status.classList.toggle('status-error', error);
}

function choose(local) {
  localButton.setAttribute('aria-pressed', String(local));
  cloudButton.setAttribute('aria-pressed', String(!local));
  localStep.hidden = !local;
  cloudStep.hidden = local;
}

/** The stored settings, or null. */
async function storedSettings() {
  return (await ask({ type: 'get_settings' })).settings;
}

/** A problem the worker answered, in the user's language. */
const problemText = (problem) => said(problem.message, problem.localizable);

/** Tests `chosen` (the provider must list its models), then stores it over the stored settings. */
async function connect(chosen, status) {
  try {
    const settings = { ...((await storedSettings()) ?? {}), ...chosen };
    const checked = await ask({ type: 'validate_settings', settings });
    if (checked.problem) return say(status, problemText(checked.problem), true);
    say(status, t('setup_testing'));
    const listed = await ask({ type: 'list_models', settings });
    if (listed.problem) return say(status, problemText(listed.problem), true);
    const saved = await ask({ type: 'save_settings', settings });
    if (saved.problem) return say(status, problemText(saved.problem), true);
    say(status, t('setup_connected', settings.model));
  } catch (err) {
    return say(status, err.message, true);
  }
  return close();
}

/** One found server: its models to choose from and a button to use it, or what stops its use. */
function serverItem(server) {
  const item = element('li', 'server');
  item.append(element('h3', null, server.name), element('span', 'address', server.base_url));
  if (server.problem) {
    item.append(element('p', 'problem', server.problem));
    return item;
  }
  const id = `model-${server.name.replace(/\W/g, '')}`;
  const label = element('label', null, t('setup_model'));
  label.htmlFor = id;
  const select = element('select');
  select.id = id;
  for (const name of server.models) select.append(new Option(name, name));
  const use = button(null, t('setup_use', server.name),
    () => connect({ provider: 'openai-compatible', baseUrl: server.base_url, model: select.value, apiKey: '' }, localStatus));
  item.append(label, select, use);
  return item;
}

async function findServers() {
  serverList.replaceChildren();
  lookAgain.hidden = true;
  say(localStatus, t('setup_looking'));
  const [{ servers: found }, builtIn] = await Promise.all([
    ask({ type: 'find_local_servers' }),
    builtInItem(() => connect(BUILT_IN_SETTINGS, localStatus)),
  ]);
  serverList.replaceChildren(builtIn.item, ...found.map(serverItem));
  lookAgain.hidden = false;
  const usable = found.filter((server) => !server.problem).length;
  if (!found.length && builtIn.usable) {
    say(localStatus, t('setup_built_in_offered'));
  } else if (!found.length) {
    say(localStatus, t('setup_none_found'), true);
  } else if (usable) {
    say(localStatus, usable === 1 ? t('setup_found_one') : t('setup_found', usable));
  } else {
    say(localStatus, t('setup_found_unusable'), true);
  }
}

function open() {
  document.body.classList.add('setup-open');
  section.hidden = false;
  document.getElementById('setup-title').focus();
}

function close() {
  document.body.classList.remove('setup-open');
  section.hidden = true;
  document.getElementById('task').focus();
}

localButton.addEventListener('click', () => {
  choose(true);
  findServers();
});
lookAgain.addEventListener('click', findServers);
cloudButton.addEventListener('click', () => {
  choose(false);
  modelField.value ||= FIRST_MODEL[provider.value];
  keyField.focus();
});
provider.addEventListener('change', () => { modelField.value = FIRST_MODEL[provider.value]; });
cloudStep.addEventListener('submit', (e) => {
  e.preventDefault();
  connect({ provider: provider.value, baseUrl: '', model: modelField.value.trim(), apiKey: keyField.value.trim() }, cloudStatus);
});
// Set up elsewhere (the settings page) meanwhile: the chat is ready.
onChanged(async (what) => {
  if (what === 'settings' && !section.hidden && !needsSetup(await storedSettings())) close();
});

if (needsSetup(await storedSettings())) open();
