//! The hard token budget: every request is fitted into the model's input budget before it is
//! sent, shrinking in a fixed order of what matters least:
//!
//! 1. screenshots kept in the history (only the current state's may stay);
//! 2. the results of older steps (extracted content included), oldest first;
//! 3. the rest of the older history (outputs, plans, notes), oldest first, with a marker saying
//!    how much was left out (the summary of older steps, the tasks and the instructions stay),
//!    all but the navigator's latest output, which carries its own memory of the task;
//! 4. the current screenshot, then the page lines of the state message, from the end;
//! 5. that latest output.
//!
//! Only when the instructions, the tasks, the summary and the state without its page lines do
//! not fit is the request refused, with an error the user can act on.

use super::Kind;
use crate::i18n::Text;
use crate::llm::{ChatMessage, ChatRequest};
use crate::text;
use crate::text::truncate_words;
use crate::tokens::TokenCounter;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// One model's input budget and how its tokens are counted.
#[derive(Clone)]
pub struct Budget {
    pub counter: TokenCounter,
    /// The most input tokens a request may carry: the model's context window less the reply's
    /// reserve, or the user's own limit.
    pub max_input_tokens: usize,
}

/// A message offered to [`fit`], with its token count when already known.
#[derive(Debug, Clone)]
pub struct Part {
    pub kind: Kind,
    pub message: ChatMessage,
    pub tokens: Option<usize>,
}

impl Part {
    pub fn new(kind: Kind, message: ChatMessage) -> Self {
        Part { kind, message, tokens: None }
    }
}

/// A request before it is fitted: its messages in order and the reply's schema.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub parts: Vec<Part>,
    pub schema_name: String,
    pub schema: Value,
    /// Whether `schema` is the reply's whole shape, to be enforced (see [`ChatRequest::strict`]).
    pub strict: bool,
}

/// A request fitted into its budget, with what it carries.
#[derive(Debug, Clone)]
pub struct FittedRequest {
    pub request: ChatRequest,
    /// Something was left out or cut to fit.
    pub shrunk: bool,
    pub split: TokenSplit,
}

impl Prompt {
    /// The request within `budget`.
    pub fn fit(self, budget: &Budget) -> Result<FittedRequest, OverBudget> {
        let fitted = fit(budget, &self.schema, self.parts)?;
        Ok(FittedRequest {
            request: ChatRequest {
                messages: fitted.messages,
                schema_name: self.schema_name,
                schema: self.schema,
                strict: self.strict,
            },
            shrunk: fitted.shrunk,
            split: fitted.split,
        })
    }

    /// What the request needs as it is, nothing left out: the least budget it fits in.
    pub fn tokens(&self, counter: &TokenCounter) -> usize {
        request_overhead(counter, &self.schema)
            + self.parts.iter().map(|part| part.tokens.unwrap_or_else(|| counter.message(&part.message))).sum::<usize>()
    }
}

/// A request's messages within the budget.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub messages: Vec<ChatMessage>,
    /// The request's input tokens as counted (messages and the reply schema).
    pub tokens: usize,
    /// Something was left out or cut to fit.
    pub shrunk: bool,
    /// Where those tokens went.
    pub split: TokenSplit,
}

/// A fitted request's tokens by what they carry; the parts add up to the request's count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TokenSplit {
    /// The agent's instructions (system messages).
    pub instructions: usize,
    /// The reply's schema, with the reply's priming.
    pub schema: usize,
    /// The user's tasks and the summary of older steps.
    pub task: usize,
    /// Earlier steps: outputs, results, feedback, and the note on what was left out.
    pub history: usize,
    pub plan: usize,
    /// The state message without its page lines and screenshot: step, results, tabs, URL, title.
    pub state_header: usize,
    pub page_lines: usize,
    pub screenshot: usize,
}

impl TokenSplit {
    pub fn total(&self) -> usize {
        self.instructions
            + self.schema
            + self.task
            + self.history
            + self.plan
            + self.state_header
            + self.page_lines
            + self.screenshot
    }
}

/// The part of a request that cannot be shrunk does not fit the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct OverBudget {
    pub needed: usize,
    pub budget: usize,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl OverBudget {
    /// What is too small and what to change, for the user.
    pub fn text(&self) -> Text {
        text!("core_budget_too_small", self.budget, self.needed)
    }
}

/// What every request carries besides its messages: the reply schema and the reply's priming.
fn request_overhead(counter: &TokenCounter, schema: &Value) -> usize {
    const REPLY_PRIMING: usize = 3;
    counter.text(&schema.to_string()) + REPLY_PRIMING
}

/// The marker put where older history was left out (it counts against the budget too).
pub(super) fn omission_marker(count: usize) -> ChatMessage {
    ChatMessage::user(format!(
        "({count} earlier messages of this conversation were left out to fit the model's token budget.)"
    ))
}

/// Fits `parts` (in request order) and the reply `schema` into the budget.
pub fn fit(budget: &Budget, schema: &Value, parts: Vec<Part>) -> Result<Fitted, OverBudget> {
    let counter = &budget.counter;
    let limit = budget.max_input_tokens;
    let mut request = Draft {
        counter,
        overhead: request_overhead(counter, schema),
        slots: parts
            .into_iter()
            .map(|part| {
                let tokens = part.tokens.unwrap_or_else(|| counter.message(&part.message));
                Slot { kind: part.kind, message: part.message, tokens, kept: true }
            })
            .collect(),
        omitted: 0,
        shrunk: false,
    };
    // 1. Screenshots in the history.
    for i in 0..request.slots.len() {
        if request.total() <= limit {
            break;
        }
        if request.slots[i].kind != Kind::State {
            request.drop_images(i);
        }
    }
    // 2 and 3. Older results, then the rest of the older history but the latest output.
    let latest_output = request.slots.iter().rposition(|slot| slot.kind == Kind::Output);
    request.leave_out(limit, |_, kind| kind == Kind::Results);
    request.leave_out(limit, |i, kind| kind.is_history() && Some(i) != latest_output);
    // 4. The state: its screenshot, then its page lines.
    for i in 0..request.slots.len() {
        if request.slots[i].kind != Kind::State || request.total() <= limit {
            continue;
        }
        request.drop_images(i);
        let total = request.total();
        if total > limit {
            let room = limit.saturating_sub(total - request.slots[i].tokens);
            if let Some((message, tokens)) = cut_page_lines(counter, &request.slots[i].message, room) {
                request.slots[i].message = message;
                request.slots[i].tokens = tokens;
                request.shrunk = true;
            }
        }
    }
    // 5. The latest output.
    request.leave_out(limit, |_, kind| kind.is_history());
    let tokens = request.total();
    if tokens > limit {
        return Err(OverBudget { needed: tokens, budget: limit });
    }
    let shrunk = request.shrunk;
    let split = request.split();
    Ok(Fitted { messages: request.into_messages(), tokens, shrunk, split })
}

struct Slot {
    kind: Kind,
    message: ChatMessage,
    tokens: usize,
    kept: bool,
}

/// A request being fitted.
struct Draft<'a> {
    counter: &'a TokenCounter,
    overhead: usize,
    slots: Vec<Slot>,
    /// Messages left out so far.
    omitted: usize,
    shrunk: bool,
}

impl Draft<'_> {
    fn total(&self) -> usize {
        self.overhead
            + self.marker()
            + self.slots.iter().filter(|slot| slot.kept).map(|slot| slot.tokens).sum::<usize>()
    }

    /// The omission marker's tokens, if there is one.
    fn marker(&self) -> usize {
        if self.omitted > 0 {
            self.counter.message(&omission_marker(self.omitted))
        } else {
            0
        }
    }

    /// The kept messages' tokens by what they carry.
    fn split(&self) -> TokenSplit {
        let mut split = TokenSplit { schema: self.overhead, history: self.marker(), ..TokenSplit::default() };
        for slot in self.slots.iter().filter(|slot| slot.kept) {
            match slot.kind {
                Kind::System => split.instructions += slot.tokens,
                Kind::Task | Kind::Memory => split.task += slot.tokens,
                Kind::Plan => split.plan += slot.tokens,
                Kind::Output | Kind::Results | Kind::Note => split.history += slot.tokens,
                Kind::State => {
                    let screenshot: usize = slot.message.images.iter().map(|image| self.counter.image(image)).sum();
                    let header = self.counter.message(&without_page_lines(&slot.message));
                    let header = header.min(slot.tokens - screenshot);
                    split.screenshot += screenshot;
                    split.state_header += header;
                    split.page_lines += slot.tokens - screenshot - header;
                }
            }
        }
        split
    }

    /// Leaves out the messages `which` picks, oldest first, until the request fits `limit`.
    fn leave_out(&mut self, limit: usize, which: impl Fn(usize, Kind) -> bool) {
        for i in 0..self.slots.len() {
            if self.total() <= limit {
                return;
            }
            if self.slots[i].kept && which(i, self.slots[i].kind) {
                self.slots[i].kept = false;
                self.omitted += 1;
                self.shrunk = true;
            }
        }
    }

    fn drop_images(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        if slot.kept && !slot.message.images.is_empty() {
            slot.message.images.clear();
            slot.tokens = self.counter.message(&slot.message);
            self.shrunk = true;
        }
    }

    /// The messages kept, with the omission marker where the first one was left out.
    fn into_messages(self) -> Vec<ChatMessage> {
        let mut messages = Vec::with_capacity(self.slots.len() + 1);
        let mut marked = self.omitted == 0;
        for slot in self.slots {
            if slot.kept {
                messages.push(slot.message);
            } else if !marked {
                messages.push(omission_marker(self.omitted));
                marked = true;
            }
        }
        messages
    }
}

const PAGE_START: &str = "<page_content>\n";
const PAGE_END: &str = "</page_content>";

/// The state message's text with nothing between the page markers, and no images.
fn without_page_lines(message: &ChatMessage) -> ChatMessage {
    let text = &message.content;
    let lines = text
        .find(PAGE_START)
        .map(|at| at + PAGE_START.len())
        .and_then(|start| Some(start..start + text[start..].find(PAGE_END)?));
    let content = match lines {
        Some(lines) => format!("{}{}", &text[..lines.start], &text[lines.end..]),
        None => text.clone(),
    };
    ChatMessage { role: message.role, content, images: Vec::new() }
}

/// Page text lines longer than these are shortened, to each length in turn, before any line is cut.
const SHORTENED_LINE_CHARS: &[usize] = &[400, 200, 100];

/// A page text line shortened to `max` characters at a word; element lines (`[12]<...`,
/// `*[12]<...`) and lines without words to spare are kept whole.
fn shorten_text_line(line: &str, max: usize) -> Cow<'_, str> {
    let body = line.trim_start_matches('\t');
    let is_element = body.trim_start_matches('*').starts_with('[');
    if is_element || body.chars().count() <= max {
        return Cow::Borrowed(line);
    }
    Cow::Owned(format!("{}{}", &line[..line.len() - body.len()], truncate_words(body, max)))
}

/// The state message with its page lines fitted into `room` tokens, and its count: long text
/// lines shortened first, then lines cut from the end, each with a note; `None` when it has no
/// page lines.
pub(super) fn cut_page_lines(
    counter: &TokenCounter,
    message: &ChatMessage,
    room: usize,
) -> Option<(ChatMessage, usize)> {
    let text = &message.content;
    let start = text.find(PAGE_START)? + PAGE_START.len();
    let end = start + text[start..].find(PAGE_END)?;
    let original: Vec<&str> = text[start..end].lines().collect();
    let with_lines = |lines: &[Cow<str>], kept: usize, shortened: bool| {
        let mut content = String::with_capacity(text.len());
        content.push_str(&text[..start]);
        for line in &lines[..kept] {
            content.push_str(line);
            content.push('\n');
        }
        if shortened {
            content.push_str(
                "... long text lines were shortened (…) to fit the token budget: use extract to read them whole.\n",
            );
        }
        if kept < lines.len() {
            content.push_str(&format!(
                "... {} more lines of the page were cut to fit the token budget: scroll, or use extract, to read them.\n",
                lines.len() - kept
            ));
        }
        content.push_str(&text[end..]);
        let message = ChatMessage { role: message.role, content, images: message.images.clone() };
        let tokens = counter.message(&message);
        (message, tokens)
    };
    let mut lines: Vec<Cow<str>> = original.iter().map(|&line| Cow::Borrowed(line)).collect();
    let mut shortened = false;
    for &max in SHORTENED_LINE_CHARS {
        let shorter: Vec<Cow<str>> = original.iter().map(|line| shorten_text_line(line, max)).collect();
        if shorter.iter().zip(&original).all(|(a, b)| a.len() == b.len()) {
            continue; // No line is that long.
        }
        lines = shorter;
        shortened = true;
        let candidate = with_lines(&lines, lines.len(), true);
        if candidate.1 <= room {
            return Some(candidate);
        }
    }
    let with_lines = |kept: usize| with_lines(&lines, kept, shortened);
    // The most lines that fit: counts grow with the lines kept, and every candidate is counted.
    let (mut low, mut high) = (0, lines.len());
    let mut best = with_lines(0);
    while low < high {
        let middle = (low + high).div_ceil(2);
        let candidate = with_lines(middle);
        if candidate.1 <= room {
            best = candidate;
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    Some(best)
}
