// The `data` check of a suite task: the answer's data (a task with an output schema) compared
// with the expected data field by field. Every field the expected data names must be there with
// the same value (numbers by value, texts with their spaces evened out); a list must have the
// same items in the same order; fields the expected data does not name are not judged.

/** Where the answer's `data` departs from `expected`, one sentence per difference. */
export function dataDifferences(expected, data) {
  if (data === undefined || data === null) return ['no data: the task did not end with an answer in the output schema\'s shape'];
  const found = [];
  compare(expected, data, '', found);
  return found;
}

const shown = (value) => (value === undefined ? 'nothing' : JSON.stringify(value));
const even = (text) => text.trim().replace(/\s+/g, ' ');

function compare(expected, actual, path, found) {
  const at = path || '/';
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return found.push(`${at}: expected a list, got ${shown(actual)}`);
    if (actual.length !== expected.length) found.push(`${at}: ${actual.length} items, expected ${expected.length}`);
    expected.slice(0, actual.length).forEach((item, i) => compare(item, actual[i], `${path}/${i}`, found));
    return found;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return found.push(`${at}: expected an object, got ${shown(actual)}`);
    for (const [key, value] of Object.entries(expected)) compare(value, actual[key], `${path}/${key}`, found);
    return found;
  }
  const same = typeof expected === 'string' && typeof actual === 'string' ? even(expected) === even(actual) : expected === actual;
  if (!same) found.push(`${at}: expected ${shown(expected)}, got ${shown(actual)}`);
  return found;
}
