// The options page: asks the worker for the settings and to save them (it checks them with the
// core first, so that the page and the agent agree on what is valid, and keeps the key and the
// secrets' values where content scripts cannot read them). It also tests the connection to the
// provider with the form's unsaved values, and exports and imports the settings as a JSON file
// that never holds the API key or a secret's value.

import { localize, said, t } from '../shared/i18n.js';
import { element, download } from '../shared/dom.js';
import { ask } from '../shared/worker.js';
import { BUILT_IN_SETTINGS } from '../shared/built-in-model.js';

localize();

/** The stored settings, or null. */
async function loadSettings() {
  return (await ask({ type: 'get_settings' })).settings;
}

/** The worker's check of `settings`: its problem (`{ field, message, localizable, secrets }`), or null. */
async function settingsProblem(settings) {
  return (await ask({ type: 'validate_settings', settings })).problem;
}

/** The `format` marker of an exported settings file. */
const EXPORT_FORMAT = 'browser-agent-settings/1';
const EXPORT_FILENAME = 'agent-settings.json';
/** Larger than any settings file could be. */
const MAX_IMPORT_BYTES = 1_000_000;
/** Listing models should be quick: the test does not wait as long as a model's reply may take. */
const TEST_TIMEOUT_SECONDS = 20;

const form = document.getElementById('settings');
const status = document.getElementById('status');
const connectionStatus = document.getElementById('connection-status');
const testButton = document.getElementById('test-connection');
const backupStatus = document.getElementById('backup-status');
const exportButton = document.getElementById('export-settings');
const importButton = document.getElementById('import-settings');
const importFile = document.getElementById('import-file');
const secretsBox = document.getElementById('secrets');
const secretRows = document.getElementById('secret-rows');
const secretColumns = document.getElementById('secret-columns');
const secretsEmpty = document.getElementById('secrets-empty');
const addSecretButton = document.getElementById('add-secret');
const fields = ['provider', 'baseUrl', 'model', 'apiKey', 'maxSteps', 'parallelTasks', 'searchEngine', 'confirmations', 'sitePlan', 'temperature', 'reasoningEffort', 'apiVersion', 'validatorRetries', 'planningInterval', 'memoryInterval', 'maxInputTokens', 'requestStyle', 'plannerModel', 'validatorModel', 'plannerTemperature', 'validatorTemperature', 'plannerReasoningEffort', 'validatorReasoningEffort', 'requestTimeoutSeconds'];
const checkboxes = ['highlights', 'trustedInput', 'validator', 'vision', 'askBeforeActing', 'mcp', 'film'];
const lists = ['allowList', 'denyList'];
/** The fields a connection test depends on: changing one clears its result. */
const providerFields = ['provider', 'baseUrl', 'model', 'apiKey', 'apiVersion'];
const listFrom = (text) => text.split('\n').map((line) => line.trim()).filter(Boolean);
/** "model | input | output" lines <-> prices. */
const pricesFrom = (text) => listFrom(text).map((line) => {
  const [model = '', input = '0', output = '0'] = line.split('|').map((part) => part.trim());
  return { model, input: Number(input) || 0, output: Number(output) || 0 };
});
const pricesText = (prices) => prices.map((p) => `${p.model} | ${p.input} | ${p.output}`).join('\n');

// --- Secrets -----------------------------------------------------------------------------------
// One row per secret: name, value (a password field, shown only while its Show button is pressed),
// sites. A value is only ever put in its input's `value` property: never in an attribute or in the
// page's text.

/** Gives each row's inputs distinct ids; never reused, so a label cannot point at another row's input. */
let secretRowCount = 0;

/** Numbers the rows' labels "secret 1", "secret 2"… in their order on the page, after a change. */
function renumberSecrets() {
  const rows = [...secretRows.children];
  rows.forEach((row, index) => {
    const n = index + 1;
    row.querySelector('.secret-name-label').textContent = t('options_secret_name_label', n);
    row.querySelector('.secret-value-label').textContent = t('options_secret_value_label', n);
    row.querySelector('.secret-domains-label').textContent = t('options_secret_sites_label', n);
    row.querySelector('.secret-show').setAttribute('aria-label', t('options_secret_show_label', n));
    row.querySelector('.secret-remove').setAttribute('aria-label', t('options_secret_remove_label', n));
  });
  secretColumns.hidden = rows.length === 0;
  secretsEmpty.hidden = rows.length > 0;
}

/** A labelled text input of a secret row (the label is read by screen readers, not shown). */
function secretInput(kind, id, placeholder) {
  const label = element('label', `visually-hidden secret-${kind}-label`);
  label.htmlFor = id;
  const input = element('input', `secret-${kind}`);
  input.id = id;
  input.type = kind === 'value' ? 'password' : 'text';
  input.autocomplete = 'off';
  input.spellcheck = false; // Spelling services must never see a value.
  input.setAttribute('autocapitalize', 'off');
  input.placeholder = placeholder;
  return { label, input };
}

/** Adds a row for `secret` (empty for a new one) and returns it. */
function addSecretRow(secret = { name: '', value: '', domains: [] }) {
  secretRowCount += 1;
  const id = `secret-${secretRowCount}`;
  const row = element('li', 'secret-row');
  const name = secretInput('name', `${id}-name`, t('options_secret_name_placeholder'));
  const value = secretInput('value', `${id}-value`, t('options_secret_value'));
  const domains = secretInput('domains', `${id}-domains`, t('options_secret_sites_placeholder'));
  name.input.value = secret.name ?? '';
  value.input.value = secret.value ?? '';
  domains.input.value = (secret.domains ?? []).join(', ');

  const show = element('button', 'secret-show', t('options_secret_show'));
  show.type = 'button';
  show.setAttribute('aria-pressed', 'false');
  show.setAttribute('aria-controls', value.input.id);
  show.addEventListener('click', () => {
    const shown = show.getAttribute('aria-pressed') !== 'true';
    value.input.type = shown ? 'text' : 'password';
    show.setAttribute('aria-pressed', String(shown));
  });

  const remove = element('button', 'secret-remove', t('options_secret_remove'));
  remove.type = 'button';
  remove.addEventListener('click', () => removeSecretRow(row));

  const valueCell = element('span', 'secret-value-cell');
  valueCell.append(value.input, show);
  // Each label just before its input, for reading in order; the labels take no room on screen.
  row.append(name.label, name.input, value.label, valueCell, domains.label, domains.input, remove);
  secretRows.append(row);
  renumberSecrets();
  return row;
}

/** Removes a row, moving the focus to the row that takes its place (or the one before, or Add secret). */
function removeSecretRow(row) {
  const next = row.nextElementSibling ?? row.previousElementSibling;
  row.remove();
  renumberSecrets();
  unsaved = true;
  (next?.querySelector('.secret-name') ?? addSecretButton).focus();
}

/** Shows `secrets` in the editor, in place of the rows it had. */
function fillSecrets(secrets) {
  secretRows.replaceChildren();
  for (const secret of secrets) addSecretRow(secret);
  renumberSecrets();
}

/** Splits a sites field on commas and white space. */
const domainsFrom = (text) => text.split(/[\s,]+/).filter(Boolean);

/** The secret a row shows. */
const secretOf = (row) => ({
  name: row.querySelector('.secret-name').value.trim(),
  // Exactly as typed: a password's spaces are part of it.
  value: row.querySelector('.secret-value').value,
  domains: domainsFrom(row.querySelector('.secret-domains').value),
});

/** Whether a row was left entirely empty: it is no secret. */
const isBlank = (secret) => !secret.name && !secret.value && secret.domains.length === 0;

/** The secrets as the editor shows them. */
function readSecrets() {
  return [...secretRows.children].map(secretOf).filter((secret) => !isBlank(secret));
}

/**
 * Marks the secret rows the core refuses (`marks`: `{ index, part }` by the place of the secret
 * in the settings, blank rows left out, as the core's check names them) and focuses the first: its
 * name when the name is wrong, else its value. Returns that input, if any.
 */
function markBadSecrets(marks) {
  const rows = [...secretRows.children].filter((row) => !isBlank(secretOf(row)));
  let first = null;
  for (const { index, part } of marks) {
    const input = rows[index]?.querySelector(part === 'name' ? '.secret-name' : '.secret-value');
    if (!input) continue;
    input.setAttribute('aria-invalid', 'true');
    first ??= input;
  }
  return first;
}

addSecretButton.addEventListener('click', () => {
  const row = addSecretRow();
  unsaved = true;
  row.querySelector('.secret-name').focus();
});

/** Sentences joined into one message, leaving out the empty (or `false`) ones. */
const sentences = (...parts) => parts.filter(Boolean).join(' ');

/**
 * Writes `message` into a status region, in the tone of `kind`: 'ok', 'error' (shown in colour
 * and with the class of the same name) or 'progress' (neutral).
 */
function say(region, message, kind = 'ok') {
  region.textContent = message;
  region.className = message ? `status ${kind}` : 'status';
}

function show(message, isError) {
  say(status, message, isError ? 'error' : 'ok');
}

/** Whether the form has changes that are not saved. */
let unsaved = false;

/** Puts stored (or imported) settings into the form; fields they do not name are left as they are. */
function fill(settings) {
  for (const name of fields) if (settings[name] !== undefined && settings[name] !== null) form.elements[name].value = settings[name];
  for (const name of checkboxes) if (settings[name] !== undefined) form.elements[name].checked = settings[name];
  for (const name of lists) if (settings[name] !== undefined) form.elements[name].value = settings[name].join('\n');
  if (settings.secrets) fillSecrets(settings.secrets);
  if (settings.prices) form.elements.prices.value = pricesText(settings.prices);
}

/** Fills the form from storage; the fields stay disabled until then so no typing is overwritten. */
async function load() {
  fill((await loadSettings()) ?? {});
  unsaved = false;
  document.getElementById('fields').disabled = false;
  exportButton.disabled = false;
  importButton.disabled = false;
  // Opened from the panel's "Fix in settings" (options.html#field): that field, marked and focused.
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted && form.elements[wanted]) markInvalid(wanted);
}

const numberOrNull = (text) => (text.trim() === '' ? null : Number(text));

/** The settings as the form shows them. */
function readForm() {
  return {
    provider: form.elements.provider.value,
    baseUrl: form.elements.baseUrl.value.trim(),
    model: form.elements.model.value.trim(),
    apiKey: form.elements.apiKey.value.trim(),
    maxSteps: Number(form.elements.maxSteps.value),
    parallelTasks: Number(form.elements.parallelTasks.value) || 3,
    requestTimeoutSeconds: Number(form.elements.requestTimeoutSeconds.value) || 120,
    highlights: form.elements.highlights.checked,
    searchEngine: form.elements.searchEngine.value,
    confirmations: form.elements.confirmations.value,
    sitePlan: form.elements.sitePlan.value,
    temperature: numberOrNull(form.elements.temperature.value),
    reasoningEffort: form.elements.reasoningEffort.value || null,
    apiVersion: form.elements.apiVersion.value.trim() || null,
    trustedInput: form.elements.trustedInput.checked,
    mcp: form.elements.mcp.checked,
    validator: form.elements.validator.checked,
    vision: form.elements.vision.checked,
    film: form.elements.film.checked,
    askBeforeActing: form.elements.askBeforeActing.checked,
    validatorRetries: Number(form.elements.validatorRetries.value) || 0,
    planningInterval: Number(form.elements.planningInterval.value) || 0,
    memoryInterval: Number(form.elements.memoryInterval.value) || 0,
    maxInputTokens: Number(form.elements.maxInputTokens.value) || 0,
    requestStyle: form.elements.requestStyle.value,
    plannerModel: form.elements.plannerModel.value.trim() || null,
    validatorModel: form.elements.validatorModel.value.trim() || null,
    plannerTemperature: numberOrNull(form.elements.plannerTemperature.value),
    validatorTemperature: numberOrNull(form.elements.validatorTemperature.value),
    plannerReasoningEffort: form.elements.plannerReasoningEffort.value || null,
    validatorReasoningEffort: form.elements.validatorReasoningEffort.value || null,
    allowList: listFrom(form.elements.allowList.value),
    denyList: listFrom(form.elements.denyList.value),
    secrets: readSecrets(),
    prices: pricesFrom(form.elements.prices.value),
  };
}

/** The name a field goes by on the page (its label, or its group's legend), for messages. */
function fieldLabel(name) {
  const label = document.querySelector(`label[for="${name}"], fieldset#${name} > legend`);
  return label ? label.textContent.trim() : name;
}

function clearInvalid() {
  for (const name of [...fields, ...lists, 'prices']) form.elements[name].removeAttribute('aria-invalid');
  secretsBox.classList.remove('invalid');
  for (const input of secretRows.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}

/** Marks `field` (and focuses it); for the secrets, those `problem` names, or the worker's check
 * of the form names. */
async function markInvalid(field, focus = true, problem = null) {
  if (field === 'secrets') {
    // The section is marked; each secret the core refuses has its wrong input marked too.
    secretsBox.classList.add('invalid');
    const marks = (problem ?? await settingsProblem(readForm()))?.secrets ?? [];
    const input = markBadSecrets(marks);
    if (focus) (input ?? secretRows.querySelector('input') ?? addSecretButton).focus();
    return;
  }
  const control = form.elements[field];
  if (!control) return;
  control.setAttribute('aria-invalid', 'true');
  if (focus) control.focus();
}

/** "3 models available", for the messages that report a model list. */
const modelCount = (models) => (models.length === 1 ? t('options_models_count_one') : t('options_models_count', models.length));

/** Puts the provider's model names into the model field's suggestions. */
function suggestModels(models) {
  document.getElementById('model-list').replaceChildren(...models.map((name) => {
    const option = document.createElement('option');
    option.value = name;
    return option;
  }));
}

// The provider's own model list, offered as suggestions for the model field.
document.getElementById('load-models').addEventListener('click', async () => {
  say(status, t('options_loading_models'), 'progress');
  try {
    const { models, problem } = await ask({ type: 'list_models', settings: readForm() });
    if (problem) return show(said(problem.message, problem.localizable), true);
    suggestModels(models);
    show(t('options_models_loaded', modelCount(models)), false);
  } catch (err) {
    show(err.message, true);
  }
  return undefined;
});

// --- Test connection -------------------------------------------------------------------------

/** Counts tests and provider field changes, so that a result for older values is not shown. */
let connectionGeneration = 0;

function clearConnection() {
  connectionGeneration += 1;
  say(connectionStatus, '');
}

for (const name of providerFields) {
  form.elements[name].addEventListener('input', clearConnection);
  form.elements[name].addEventListener('change', clearConnection);
}
// Chrome's built-in model has one name, and needs neither address nor key.
form.elements.provider.addEventListener('change', () => {
  if (form.elements.provider.value === BUILT_IN_SETTINGS.provider) form.elements.model.value = BUILT_IN_SETTINGS.model;
});

/** Whether `model` (as the user typed it) is in the provider's `models`. */
function modelListed(model, models) {
  const wanted = model.replace(/^models\//, '');
  // Ollama lists "llama3.1:latest" for the "llama3.1" one may ask for.
  return models.some((name) => name === wanted || name === `${wanted}:latest`);
}

/** What a successful test found, in one sentence. */
function connectionReport(model, models) {
  const count = modelCount(models);
  if (models.length === 0) return t('options_connected_no_models');
  if (!model) return t('options_connected_choose', count);
  if (modelListed(model, models)) return t('options_connected_model_listed', count, model);
  return t('options_connected_model_unlisted', count, model);
}

testButton.addEventListener('click', async () => {
  const settings = readForm();
  const generation = ++connectionGeneration;
  testButton.disabled = true;
  testButton.setAttribute('aria-busy', 'true');
  say(connectionStatus, t('options_testing_connection'), 'progress');
  try {
    // Only the provider's address must be right to ask it anything.
    const problem = await settingsProblem(settings);
    if (problem && problem.field === 'baseUrl') {
      markInvalid('baseUrl');
      say(connectionStatus, said(problem.message, problem.localizable), 'error');
      return;
    }
    form.elements.baseUrl.removeAttribute('aria-invalid');
    const timeout = Math.min(settings.requestTimeoutSeconds, TEST_TIMEOUT_SECONDS);
    const answer = await ask({ type: 'list_models', settings: { ...settings, requestTimeoutSeconds: timeout } });
    if (generation !== connectionGeneration) return; // The fields changed meanwhile.
    if (answer.problem) {
      say(connectionStatus, said(answer.problem.message, answer.problem.localizable), 'error');
      return;
    }
    const { models } = answer;
    suggestModels(models);
    const listed = settings.model && modelListed(settings.model, models);
    say(connectionStatus, connectionReport(settings.model, models), models.length === 0 || (settings.model && !listed) ? 'error' : 'ok');
  } finally {
    testButton.disabled = false;
    testButton.removeAttribute('aria-busy');
  }
});

// --- Save ------------------------------------------------------------------------------------

/**
 * Saves the form as it stands through the worker, which checks it first: `undefined` when saved,
 * else the core's `{ field, message }` (shown next to the Save button, the field marked and
 * focused).
 */
async function saveForm() {
  const settings = readForm();
  clearInvalid();
  const { problem } = await ask({ type: 'save_settings', settings });
  if (problem) {
    await markInvalid(problem.field, true, problem);
    show(said(problem.message, problem.localizable), true);
    return problem;
  }
  unsaved = false;
  show(t('options_saved'), false);
  return undefined;
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  await saveForm();
});

form.addEventListener('input', () => { unsaved = true; });
form.addEventListener('change', () => { unsaved = true; });

// The debugger permission is asked for only when trusted input is turned on (a user gesture), and
// given back when it is turned off.
form.elements.trustedInput.addEventListener('change', async (event) => {
  const box = event.target;
  if (box.checked) {
    const granted = await chrome.permissions.request({ permissions: ['debugger'] }).catch(() => false);
    if (!granted) {
      box.checked = false;
      show(t('options_trusted_input_denied'), true);
    }
  } else {
    await chrome.permissions.remove({ permissions: ['debugger'] }).catch(() => {});
  }
});

// --- Export ----------------------------------------------------------------------------------

/** The saved settings as an export: no API key, secrets with their names and sites but no value. */
function exportable(settings) {
  const { apiKey: _key, format: _format, secrets = [], ...rest } = settings;
  return {
    format: EXPORT_FORMAT,
    ...rest,
    secrets: secrets.map((secret) => ({ name: secret.name, value: '', domains: secret.domains ?? [] })),
  };
}

exportButton.addEventListener('click', async () => {
  const stored = await loadSettings();
  if (!stored) {
    say(backupStatus, t('options_nothing_to_export'), 'error');
    return;
  }
  const { tasks: savedTasks } = await ask({ type: 'get_saved_tasks' });
  download(EXPORT_FILENAME, `${JSON.stringify({ ...exportable(stored), savedTasks }, null, 2)}\n`, 'application/json');
  say(backupStatus, sentences(t('options_exported', EXPORT_FILENAME), unsaved && t('options_exported_unsaved')));
});

// --- Import ----------------------------------------------------------------------------------

const NUMBERS = ['maxSteps', 'parallelTasks', 'requestTimeoutSeconds', 'validatorRetries', 'planningInterval', 'memoryInterval', 'maxInputTokens'];
const OPTIONAL_NUMBERS = ['temperature', 'plannerTemperature', 'validatorTemperature'];
const STRINGS = ['baseUrl', 'model', 'apiKey'];
const OPTIONAL_STRINGS = ['apiVersion', 'plannerModel', 'validatorModel'];
const CHOICES = ['provider', 'searchEngine', 'confirmations', 'sitePlan', 'requestStyle', 'reasoningEffort', 'plannerReasoningEffort', 'validatorReasoningEffort'];

/** Checks that each setting the file names has the kind of value the form holds: a message, or `null`. */
function shapeProblem(settings) {
  const wrong = (name, message) => ({ field: name, message });
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    const shown = JSON.stringify(value); // As the file has it.
    if (NUMBERS.includes(name) && !(Number.isInteger(value) && value >= 0)) return wrong(name, t('options_value_not_whole_number', shown));
    if (OPTIONAL_NUMBERS.includes(name) && value !== null && !Number.isFinite(value)) return wrong(name, t('options_value_not_number', shown));
    if (STRINGS.includes(name) && typeof value !== 'string') return wrong(name, t('options_value_not_text', shown));
    if (OPTIONAL_STRINGS.includes(name) && value !== null && typeof value !== 'string') return wrong(name, t('options_value_not_text', shown));
    if (checkboxes.includes(name) && typeof value !== 'boolean') return wrong(name, t('options_value_not_boolean', shown));
    if (CHOICES.includes(name) && value !== null) {
      const options = [...form.elements[name].options].map((option) => option.value).filter(Boolean);
      if (!options.includes(value)) return wrong(name, t('options_value_not_choice', shown, options.join(', ')));
    }
    if (lists.includes(name) && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) return wrong(name, t('options_value_not_sites', shown));
    const isObject = (item) => item !== null && typeof item === 'object' && !Array.isArray(item);
    if (name === 'secrets' && !(Array.isArray(value) && value.every((s) => isObject(s) && typeof s.name === 'string'
      && (s.value === undefined || typeof s.value === 'string')
      && (s.domains === undefined || (Array.isArray(s.domains) && s.domains.every((d) => typeof d === 'string')))))) {
      return wrong(name, t('options_value_not_secrets', shown));
    }
    if (name === 'prices' && !(Array.isArray(value) && value.every((p) => isObject(p) && typeof p.model === 'string'
      && Number.isFinite(p.input ?? 0) && Number.isFinite(p.output ?? 0)))) {
      return wrong(name, t('options_value_not_prices', shown));
    }
  }
  return null;
}

/** Reads the chosen file as an exported settings file: `{ settings }` or `{ error }`. */
async function readExport(file) {
  if (file.size > MAX_IMPORT_BYTES) return { error: t('options_import_too_large', file.name, EXPORT_FILENAME) };
  let data;
  try {
    data = JSON.parse(await file.text());
  } catch {
    return { error: t('options_import_not_json', file.name, EXPORT_FILENAME) };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('format' in data)) {
    return { error: t('options_import_no_format', file.name, EXPORT_FORMAT, EXPORT_FILENAME) };
  }
  if (data.format !== EXPORT_FORMAT) {
    return { error: t('options_import_other_format', file.name, JSON.stringify(data.format), EXPORT_FORMAT) };
  }
  const { format: _format, ...settings } = data;
  return { settings };
}

/** The imported settings with the key and the secret values saved here where the file has none. */
function withKeptSecrets(imported, stored) {
  const kept = new Map((stored?.secrets ?? []).map((secret) => [secret.name, secret.value]));
  return {
    ...imported,
    apiKey: imported.apiKey || stored?.apiKey || '',
    secrets: (imported.secrets ?? []).map((secret) => ({
      name: secret.name,
      value: secret.value || kept.get(secret.name) || '',
      domains: secret.domains ?? [],
    })),
  };
}

/** A message for a file the import refused: nothing was changed. */
function refuse(message, field) {
  const text = field ? t('options_import_refused_field', fieldLabel(field), message) : t('options_import_refused', message);
  say(backupStatus, text, 'error');
}

async function importSettings(file) {
  say(backupStatus, t('options_reading_file', file.name), 'progress');
  const { settings: { savedTasks, ...imported } = {}, error } = await readExport(file);
  if (error) return refuse(error);
  const tasksProblem = savedTasks === undefined ? null : (await ask({ type: 'check_saved_tasks', tasks: savedTasks })).problem;
  if (tasksProblem) return refuse(t('options_import_saved_tasks_problem', said(tasksProblem.message, tasksProblem.localizable)));
  const shape = shapeProblem(imported);
  if (shape) return refuse(t('options_import_field_problem', fieldLabel(shape.field), shape.message), shape.field);

  const stored = await loadSettings();
  const settings = withKeptSecrets(imported, stored);
  const problem = await settingsProblem(settings);
  const missing = settings.secrets.filter((secret) => !secret.value).map((secret) => secret.name);
  // Secrets whose values are to be entered again are the one problem the form can finish.
  const onlyMissingValues = problem && problem.field === 'secrets' && missing.length > 0
    && !(await settingsProblem({ ...settings, secrets: settings.secrets.map((s) => ({ ...s, value: s.value || 'to be entered' })) }));
  if (problem && !onlyMissingValues) return refuse(said(problem.message, problem.localizable), problem.field);

  let trustedNote = '';
  if (settings.trustedInput && !(await chrome.permissions.contains({ permissions: ['debugger'] }).catch(() => false))) {
    settings.trustedInput = false;
    trustedNote = t('options_import_trusted_input_off');
  }

  form.reset(); // Settings the file does not name take their defaults.
  fill(settings);
  clearInvalid();
  clearConnection();
  unsaved = true;
  const keyNote = imported.apiKey ? t('options_import_key_used') : stored?.apiKey ? t('options_import_key_kept') : '';

  // The saved tasks are the user's own list, apart from the settings: they are taken as they are.
  if (savedTasks !== undefined) {
    const { problem: notSaved } = await ask({ type: 'save_saved_tasks', tasks: savedTasks });
    if (notSaved) throw new Error(said(notSaved.message, notSaved.localizable));
  }
  if (onlyMissingValues) {
    await markInvalid('secrets');
    const names = missing.join(', ');
    show('', false);
    const enter = missing.length === 1 ? t('options_imported_enter_value', file.name, names) : t('options_imported_enter_values', file.name, names);
    say(backupStatus, sentences(enter, keyNote, trustedNote), 'error');
    return undefined;
  }
  const saveProblem = await saveForm();
  if (saveProblem) return say(backupStatus, t('options_imported_not_saved', file.name, saveProblem.message), 'error');
  say(backupStatus, sentences(t('options_imported', file.name), keyNote, trustedNote));
  return undefined;
}

importButton.addEventListener('click', () => importFile.click());
importFile.addEventListener('change', async () => {
  const [file] = importFile.files;
  if (!file) return;
  importButton.disabled = true;
  try {
    await importSettings(file);
  } catch (err) {
    say(backupStatus, t('options_import_failed', err?.message ?? err), 'error');
  } finally {
    importFile.value = ''; // The same file may be chosen again.
    importButton.disabled = false;
  }
});

load();
