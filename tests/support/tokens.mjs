// Token counts by an independent o200k tokenizer (js-tiktoken), to check the extension's own.

import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

const encoder = new Tiktoken(o200k);

export const tokens = (text) => encoder.encode(text, [], []).length;

/** A request's input tokens as the budget defines them: each message's text and its 3 tokens of
 * framing, the reply schema sent, and the 3 tokens that prime the reply. */
export function requestTokens(request) {
  const schema = request.raw.response_format?.json_schema?.schema ?? request.raw.tools?.[0]?.function?.parameters ?? null;
  const messages = request.messages.reduce((sum, m) => sum + tokens(m.content) + 3, 0);
  return messages + (schema ? tokens(JSON.stringify(schema)) : 0) + 3;
}
