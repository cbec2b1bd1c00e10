// The options page: reads and writes the provider settings in chrome.storage.local; the core
// validates them so that the page and the agent agree on what is valid.

import init, { listModels, validateSettings } from '../core/agent_wasm.js';
import { loadSettings, saveSettings } from '../shared/settings-store.js';

const core = init();

const form = document.getElementById('settings');
const status = document.getElementById('status');
const fields = ['provider', 'baseUrl', 'model', 'apiKey', 'maxSteps', 'searchEngine', 'confirmations', 'temperature', 'reasoningEffort', 'apiVersion', 'validatorRetries', 'planningInterval', 'memoryInterval', 'maxInputTokens', 'plannerModel', 'validatorModel', 'plannerTemperature', 'validatorTemperature', 'plannerReasoningEffort', 'validatorReasoningEffort', 'requestTimeoutSeconds'];
const checkboxes = ['highlights', 'trustedInput', 'validator', 'vision', 'askBeforeActing'];
const lists = ['allowList', 'denyList'];
const listFrom = (text) => text.split('\n').map((line) => line.trim()).filter(Boolean);
/** "name | value | site, site" lines <-> secrets. */
const secretsFrom = (text) => listFrom(text).map((line) => {
  const [name = '', value = '', sites = ''] = line.split('|').map((part) => part.trim());
  return { name, value, domains: sites.split(',').map((site) => site.trim()).filter(Boolean) };
});
/** "model | input | output" lines <-> prices. */
const pricesFrom = (text) => listFrom(text).map((line) => {
  const [model = '', input = '0', output = '0'] = line.split('|').map((part) => part.trim());
  return { model, input: Number(input) || 0, output: Number(output) || 0 };
});
const pricesText = (prices) => prices.map((p) => `${p.model} | ${p.input} | ${p.output}`).join('\n');
const secretsText = (secrets) => secrets.map((s) => `${s.name} | ${s.value} | ${s.domains.join(', ')}`).join('\n');

function show(message, isError) {
  status.textContent = message;
  status.className = isError ? 'error' : '';
}

/** Fills the form from storage; the fields stay disabled until then so no typing is overwritten. */
async function load() {
  const settings = (await loadSettings()) ?? {};
  for (const name of fields) if (settings[name] !== undefined && settings[name] !== null) form.elements[name].value = settings[name];
  for (const name of checkboxes) if (settings[name] !== undefined) form.elements[name].checked = settings[name];
  for (const name of lists) if (settings[name] !== undefined) form.elements[name].value = settings[name].join('\n');
  if (settings.secrets) form.elements.secrets.value = secretsText(settings.secrets);
  if (settings.prices) form.elements.prices.value = pricesText(settings.prices);
  document.getElementById('fields').disabled = false;
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
    requestTimeoutSeconds: Number(form.elements.requestTimeoutSeconds.value) || 120,
    highlights: form.elements.highlights.checked,
    searchEngine: form.elements.searchEngine.value,
    confirmations: form.elements.confirmations.value,
    temperature: numberOrNull(form.elements.temperature.value),
    reasoningEffort: form.elements.reasoningEffort.value || null,
    apiVersion: form.elements.apiVersion.value.trim() || null,
    trustedInput: form.elements.trustedInput.checked,
    validator: form.elements.validator.checked,
    vision: form.elements.vision.checked,
    askBeforeActing: form.elements.askBeforeActing.checked,
    validatorRetries: Number(form.elements.validatorRetries.value) || 0,
    planningInterval: Number(form.elements.planningInterval.value) || 0,
    memoryInterval: Number(form.elements.memoryInterval.value) || 0,
    maxInputTokens: Number(form.elements.maxInputTokens.value) || 0,
    plannerModel: form.elements.plannerModel.value.trim() || null,
    validatorModel: form.elements.validatorModel.value.trim() || null,
    plannerTemperature: numberOrNull(form.elements.plannerTemperature.value),
    validatorTemperature: numberOrNull(form.elements.validatorTemperature.value),
    plannerReasoningEffort: form.elements.plannerReasoningEffort.value || null,
    validatorReasoningEffort: form.elements.validatorReasoningEffort.value || null,
    allowList: listFrom(form.elements.allowList.value),
    denyList: listFrom(form.elements.denyList.value),
    secrets: secretsFrom(form.elements.secrets.value),
    prices: pricesFrom(form.elements.prices.value),
  };
}

// The provider's own model list, offered as suggestions for the model field.
document.getElementById('load-models').addEventListener('click', async () => {
  await core;
  show('Loading models…', false);
  try {
    const models = await listModels(readForm());
    document.getElementById('model-list').replaceChildren(...models.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      return option;
    }));
    show(`${models.length} models available: choose one in the model field.`, false);
  } catch (err) {
    show(String(err), true);
  }
});

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const settings = readForm();  for (const name of [...fields, ...lists, 'secrets']) form.elements[name].removeAttribute('aria-invalid');
  await core;
  const problem = validateSettings(settings);
  if (problem) {
    form.elements[problem.field].setAttribute('aria-invalid', 'true');
    form.elements[problem.field].focus();
    return show(problem.message, true);
  }
  await saveSettings(settings);
  show('Saved.', false);
});

// The debugger permission is asked for only when trusted input is turned on (a user gesture), and
// given back when it is turned off.
form.elements.trustedInput.addEventListener('change', async (event) => {
  const box = event.target;
  if (box.checked) {
    const granted = await chrome.permissions.request({ permissions: ['debugger'] }).catch(() => false);
    if (!granted) {
      box.checked = false;
      show('Trusted input stays off: the debugger permission was not granted.', true);
    }
  } else {
    await chrome.permissions.remove({ permissions: ['debugger'] }).catch(() => {});
  }
});

load();
