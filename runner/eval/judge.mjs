// The `judge` check: a judge model the user names (--judge-model) decides whether a run did its
// task, the way Online-Mind2Web's automatic judge, WebJudge, does it (Xue et al., "An Illusion of
// Progress? Assessing the Current State of Web Agents", COLM 2025, arXiv:2504.01382; its method in
// github.com/OSU-NLP-Group/Online-Mind2Web, src/methods/webjudge_online_mind2web.py), with the
// same inputs and three calls, each prompt following the published one in our own words:
//   1. key points: the judge lists the conditions the task states explicitly (superlatives such as
//      "cheapest" to be met with the site's sort or filter); a suite may give them instead;
//   2. key screenshots: each step's screenshot is scored 1 to 5 for how much it shows of what the
//      task needs, with its reasoning; those scoring 3 or more (at most 50) are kept;
//   3. the outcome: from the task, the key points, the action history (the actions done, never the
//      agent's final answer, which may be made up) and the key screenshots with their reasons, the
//      judge answers "Status: success" or "failure" under the published criteria.
// An auto-judged score is the judge model's opinion, not a human's: the reports say so.

import { readFile } from 'node:fs/promises';

export const SCORE_THRESHOLD = 3;
export const MAX_SCREENSHOTS = 50;
export const SOURCE = 'WebJudge (Online-Mind2Web, arXiv:2504.01382)';

export const KEY_POINTS_PROMPT = `You analyse a task given to a web agent and list the key points it states explicitly.

Objective: read the task description and extract the critical elements it explicitly mentions for reaching its goal.

Instructions:
1. Read the task description carefully.
2. Extract the key points stated in it directly.
   - A key point is a critical element, condition or step the task description mentions explicitly.
   - Do not infer or add anything the task does not state.
   - Words such as "best", "highest", "cheapest", "latest", "most recent", "lowest", "closest", "highest-rated", "largest" and "newest" must be met with the site's sort or filter (the key point is then, e.g., "Sort by highest").

Answer with:
**Key Points**: a numbered list of the explicit key points for completing the task, one a line, without explanations.`;

export const SCREENSHOT_PROMPT = `You judge whether a screenshot of a web page shows the steps or evidence needed to complete a task.

Objective: look at the image and decide whether it shows steps or evidence essential to completing the task; explain your reasoning before giving a score.

Instructions:
1. Describe the image: what it contains, the elements and text visible, anything notable.
2. Judge whether it shows steps or evidence crucial to the task:
   - Look for what bears on the key points: actions, progress, tools used, filters applied, step-by-step information.
   - Does it show actions, progress or critical information directly tied to completing the task?
   - Is that information indispensable for understanding or confirming success?
   - Partial but relevant information counts for its usefulness; do not dismiss it.
3. Answer in this form:
   - **Reasoning**: your observations, naming the elements of the image that show the needed steps or evidence, or their absence.
   - **Score**: on this scale:
     1: nothing needed or relevant;
     2: little or ambiguous information, unlikely to be essential;
     3: some relevant steps or hints, but unclear or incomplete;
     4: important, highly relevant steps or evidence, not fully comprehensive;
     5: clearly the steps or evidence crucial to completing the task.

Answer with:
1. **Reasoning**: [your explanation]
2. **Score**: [1-5]`;

export const OUTCOME_PROMPT = `You evaluate a web navigation agent, which helps a person do a task on a website. Given the person's task, the agent's action history, the key points of the task and some possibly important screenshots of the agent's way with the reasons they matter, decide whether the agent completed the task and met every requirement.

Follow these evaluation criteria strictly:
1. Filtered results must be shown correctly. A filter not properly applied (a selection missing, a confirmation missing, or no visible effect on the results) means the task failed.
2. Check carefully that the screenshots and the action history meet the key points. Conditions such as "best", "highest", "cheapest", "latest", "most recent", "lowest", "closest", "highest-rated", "largest" and "newest" must be applied with the site's filter or sort function.
3. Requirements that a filter should apply must be applied by the filter: a search with all the requirements typed in as text is a failure, since it does not ensure every result meets them.
4. A required range of money, years, or numbers of beds and bathrooms must be matched exactly by the filter applied, neither broader nor narrower. Failures, for example: the requirement is under $50 and the filter is under $25; $1500-$2500 required, $2000-$2500 applied; $25-$200 required, $0-$200 applied; years 2004-2012 required, 2001-2012 applied; before 2015 required, 2000-2014 applied; exactly 2 beds required, 2+ beds applied.
5. Some tasks need a submission or a display of results to count as done.
6. If what was found is invalid or empty (e.g. no match), but the agent did the required actions correctly, the task counts as done.
7. If the page already shows every item there is, no filter is needed: choosing items that meet the requirement (e.g. the lowest price) completes the task.

Answer in exactly two lines:
Thoughts: <your reasoning, checking each key point and the criteria>
Status: "success" or "failure"`;

/** The key points in the judge's answer: what follows "Key Points:", each line trimmed. */
export function keyPointsIn(answer) {
  const text = answer.replace(/\n\n/g, '\n');
  const after = text.includes('**Key Points**:') ? text.split('**Key Points**:')[1] : text.split('Key Points:').at(-1);
  return after.split('\n').map((line) => line.trim()).join('\n').trim();
}

/** A screenshot's score (1 to 5; 0 when the answer gives none) and the reasoning given. */
export function screenshotScore(answer) {
  const scored = answer.split('Score')[1]?.match(/[1-5]/);
  const reasoning = answer.split('**Reasoning**:').at(-1).trim().split('\n\n')[0].replace(/\n/g, ' ');
  return { score: scored ? Number(scored[0]) : 0, reasoning };
}

/** True when the outcome answer's status (after "Status:") says success. */
export const succeeded = (answer) => (answer.toLowerCase().split('status:')[1] ?? '').includes('success');

/** The factual actions of a run, one line each: what each action did, never the final answer. */
export function actionHistory(record) {
  return (record?.steps ?? []).flatMap((step) => step.actions.filter((a) => a.name !== 'done').map((a) => `${a.name}: ${a.outcome}`));
}

/**
 * Asks `model` (`{ provider, baseUrl, model, apiKey }`) one question: `system`, then a user
 * message of `text` and `images` (JPEG in base64); resolves with the answer's text.
 */
export async function ask(model, system, text, images = []) {
  const { url, headers, body, read } = request(model, system, text, images);
  let response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  } catch (err) {
    throw new Error(`the judge model at ${url} could not be reached (${err.message}): check --judge-base-url`);
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`the judge model answered HTTP ${response.status}: ${answer?.error?.message ?? 'no message'} (check --judge-model and its key)`);
  const said = read(answer);
  if (typeof said !== 'string') throw new Error('the judge model\'s answer holds no text');
  return said;
}

const DEFAULT_BASE = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1', gemini: 'https://generativelanguage.googleapis.com/v1beta' };

/** The HTTP request of one question in the provider's wire format, and how to read its answer. */
function request({ provider, baseUrl, model, apiKey }, system, text, images) {
  const base = (baseUrl || DEFAULT_BASE[provider] || '').replace(/\/$/, '');
  if (provider === 'anthropic') {
    return {
      url: `${base}/messages`,
      headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      body: { model, max_tokens: 2048, system, messages: [{ role: 'user', content: [{ type: 'text', text }, ...images.map((data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data } }))] }] },
      read: (a) => a?.content?.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    };
  }
  if (provider === 'gemini') {
    return {
      url: `${base}/models/${encodeURIComponent(model)}:generateContent`,
      headers: { 'x-goog-api-key': apiKey },
      body: { systemInstruction: { parts: [{ text: system }] }, contents: [{ role: 'user', parts: [{ text }, ...images.map((data) => ({ inline_data: { mime_type: 'image/jpeg', data } }))] }] },
      read: (a) => a?.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join(''),
    };
  }
  // OpenAI's chat completions, which openai-compatible servers speak too (as WebJudge calls it).
  return {
    url: `${base}/chat/completions`,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    body: {
      model,
      messages: [{ role: 'system', content: system }, { role: 'user', content: [{ type: 'text', text }, ...images.map((data) => ({ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${data}`, detail: 'high' } }))] }],
    },
    read: (a) => a?.choices?.[0]?.message?.content,
  };
}

/**
 * The `judge` check of one run: `{ ok, detail, key_points, screenshots: [{ file, score }], answer }`.
 * `keyPoints` is the suite's (a list) or true (the judge identifies them from the task).
 */
export async function webJudge(model, { task, keyPoints, record, screenshots }) {
  const points = Array.isArray(keyPoints)
    ? keyPoints.map((point, i) => `${i + 1}. ${point}`).join('\n')
    : keyPointsIn(await ask(model, KEY_POINTS_PROMPT, `Task: ${task}`));
  const images = await Promise.all(screenshots.map((file) => readFile(file, 'base64')));
  const scored = await Promise.all(images.map(async (image) => screenshotScore(await ask(model, SCREENSHOT_PROMPT,
    `**Task**: ${task}\n\n**Key Points for Task Completion**: ${points}\n\nThe snapshot of the web page is shown in the image.`, [image]))));
  const key = scored.map((s, i) => ({ ...s, image: images[i] })).filter((s) => s.score >= SCORE_THRESHOLD).slice(0, MAX_SCREENSHOTS);
  const history = actionHistory(record).map((line, i) => `${i + 1}. ${line}`).join('\n');
  let text = `User Task: ${task}\n\nKey Points: ${points}\n\nAction History:\n${history}`;
  if (key.length) text += `\n\nThe potentially important snapshots of the webpage in the agent's trajectory and their reasons:\n${key.map((s, i) => `${i + 1}. ${s.reasoning}`).join('\n')}`;
  const answer = await ask(model, OUTCOME_PROMPT, text, key.map((s) => s.image));
  const ok = succeeded(answer);
  return {
    ok,
    detail: `${ok ? 'success' : 'failure'} in the judge model's opinion (${SOURCE}; not a human's judgement), from ${key.length} of ${screenshots.length} screenshots`,
    key_points: points,
    screenshots: scored.map((s, i) => ({ file: screenshots[i].split('/').slice(-2).join('/'), score: s.score })),
    answer,
  };
}
