// The flags that set up the agent (provider, models, budgets), shared by the runner
// (./build.sh run) and the evaluation (./build.sh eval), and the settings they make.

/** parseArgs options for the agent's settings. */
export const AGENT_OPTIONS = {
  'base-url': { type: 'string', default: '' },
  provider: { type: 'string', default: 'openai-compatible' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  'planner-model': { type: 'string' },
  'validator-model': { type: 'string' },
  'planning-interval': { type: 'string', default: '3' },
  'memory-interval': { type: 'string', default: '10' },
  'max-input-tokens': { type: 'string', default: '0' },
  'request-style': { type: 'string', default: 'auto' },
  'no-validator': { type: 'boolean', default: false },
  vision: { type: 'boolean', default: false },
  'site-plan': { type: 'string', default: 'off' },
  approve: { type: 'boolean', default: false },
};

/** Checks a parsed flag: its value as a whole number of at least `least`. */
export function wholeFlag(values, flag, least, usageError) {
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n < least) usageError(`--${flag} must be a whole number of at least ${least}`);
  return n;
}

/** The settings the agent flags in `values` make; `usageError(message)` reports a bad flag. */
export function agentSettings(values, usageError) {
  const providers = ['openai', 'anthropic', 'gemini', 'openai-compatible', 'azure'];
  if (!providers.includes(values.provider)) usageError(`--provider must be one of ${providers.join(', ')}`);
  if (!values['base-url'] && ['openai-compatible', 'azure'].includes(values.provider)) usageError(`--base-url is required for ${values.provider}`);
  if (!values.model) usageError('--model is required');
  const styles = ['auto', 'full', 'compact'];
  if (!styles.includes(values['request-style'])) usageError(`--request-style must be one of ${styles.join(', ')}`);
  if (!['off', 'ask', 'strict'].includes(values['site-plan'])) usageError('--site-plan must be off, ask or strict');
  let apiKey = '';
  if (values['api-key-env']) {
    apiKey = process.env[values['api-key-env']];
    if (apiKey === undefined) usageError(`the environment variable ${values['api-key-env']} is not set`);
  }
  return {
    provider: values.provider,
    baseUrl: values['base-url'],
    model: values.model,
    apiKey,
    plannerModel: values['planner-model'] ?? null,
    validatorModel: values['validator-model'] ?? null,
    planningInterval: wholeFlag(values, 'planning-interval', 0, usageError),
    memoryInterval: wholeFlag(values, 'memory-interval', 0, usageError),
    maxInputTokens: wholeFlag(values, 'max-input-tokens', 0, usageError),
    requestStyle: values['request-style'],
    validator: !values['no-validator'],
    vision: values.vision,
    sitePlan: values['site-plan'],
  };
}

/** The flag that sets each settings field, to name it in errors. */
export const FLAGS = { baseUrl: '--base-url', model: '--model', maxSteps: '--max-steps', maxInputTokens: '--max-input-tokens' };
