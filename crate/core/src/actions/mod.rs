//! The actions the navigator may ask for: their names and parameters (the model's interface), how
//! they are read from the model's output, and which of them the user must approve first. The
//! primitive page operations they become are the browser's (`browser::PageOp`).

mod asked;
pub(crate) mod catalog;
mod consequence;
mod kept;
mod search;

pub use asked::{asked_in_words, describe as describe_request, describe_body, label};
pub use catalog::{actions_prompt, actions_schema, compact_actions_prompt, NAME_FIELD};
pub use consequence::{assess, Consequence, Kind, Strictness};
pub use kept::kept_in_history;
pub use search::{search_url, SearchEngine};

use crate::browser::Click;
use crate::files::MAX_FILE_CHARS;
use crate::tabs::TabAlias;
use crate::text::thousands;
use serde_json::{json, Map, Value};

/// The most actions one reply may ask for: a long form filled in one step, with room to spare.
/// After them the agent looks at the page again. The reply schema says so too (`maxItems`), so
/// a model held to it stops there.
pub const MAX_ACTIONS_PER_STEP: usize = 20;

/// Longest wait one action waits: a longer one waits this long, and says so.
pub const MAX_WAIT_SECONDS: f64 = 10.0;
/// Most pages one scroll moves: a longer one moves this far, and says so (`bottom` goes to the end).
pub const MAX_SCROLL_PAGES: f64 = 10.0;
/// Least part of a page one scroll moves.
pub const MIN_SCROLL_PAGES: f64 = 0.1;

/// Longest text one `input_text` types: a long form field (a letter, an article, a pasted
/// document of some 15,000 words); a longer text goes in parts, each appending to the last.
pub const MAX_TYPED_CHARS: usize = 100_000;
/// Longest `send_keys`: about a hundred key presses; text goes through `input_text`.
pub const MAX_KEYS_CHARS: usize = 1_000;
/// Longest text one looks for (`find_text`, `scroll_to_text`) or chooses (`select_option`).
pub const MAX_LOOKUP_CHARS: usize = 1_000;
/// Longest `extract` query or web `search`.
pub const MAX_QUERY_CHARS: usize = 2_000;
/// Longest address `go_to_url` or `open_tab` opens (longer than most servers accept).
pub const MAX_URL_CHARS: usize = 8_000;
/// Longest file name an action gives (a held file's name may be longer than a notebook file's).
pub const MAX_FILE_NAME_CHARS: usize = 1_000;
/// Farthest a drag moves by an offset, each way, in CSS pixels (a few screens).
pub const MAX_DRAG_PIXELS: f64 = 10_000.0;
/// Longest answer `done` gives the user.
pub const MAX_ANSWER_CHARS: usize = 50_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollDirection {
    Up,
    Down,
    Top,
    Bottom,
}

impl ScrollDirection {
    fn parse(value: &str) -> Option<Self> {
        match value.to_ascii_lowercase().as_str() {
            "up" => Some(Self::Up),
            "down" => Some(Self::Down),
            "top" => Some(Self::Top),
            "bottom" => Some(Self::Bottom),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
            Self::Top => "top",
            Self::Bottom => "bottom",
        }
    }
}

/// Reads `click_element`'s `click`: a single left click when left out.
fn parse_click(value: Option<&str>) -> Result<Click, String> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("single" | "left") => Ok(Click::Single),
        Some("double") => Ok(Click::Double),
        Some("right") => Ok(Click::Right),
        Some(other) => {
            Err(format!("click_element.click must be \"double\" or \"right\" (or left out), got \"{other}\""))
        }
    }
}

/// One action as the model asked for it, already validated. Tabs are named by their alias (`t2`),
/// never by the browser's tab id.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    GoToUrl { url: String },
    Search { query: String },
    GoBack,
    GoForward,
    Reload,
    Wait { seconds: f64 },
    ClickElement { index: u32, click: Click },
    InputText { index: u32, text: String, clear: bool },
    SendKeys { keys: String },
    Hover { index: u32 },
    SelectOption { index: u32, text: String },
    GetDropdownOptions { index: u32 },
    Scroll { direction: ScrollDirection, pages: f64, index: Option<u32> },
    ScrollToText { text: String },
    FindText { text: String },
    OpenTab { url: String },
    SwitchTab { tab: TabAlias },
    CloseTab { tab: TabAlias },
    Extract { query: String },
    Done { text: String, success: bool },
    WriteFile { name: String, text: String },
    AppendFile { name: String, text: String },
    ReadFile { name: String, start_line: Option<u32> },
    UploadFile { index: u32, name: String },
    AskUser { question: String },
    Drag { index: u32, to: Option<u32>, dx: f64, dy: f64 },
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::GoToUrl { .. } => "go_to_url",
            Action::Search { .. } => "search",
            Action::GoBack => "go_back",
            Action::GoForward => "go_forward",
            Action::Reload => "reload",
            Action::Wait { .. } => "wait",
            Action::ClickElement { .. } => "click_element",
            Action::InputText { .. } => "input_text",
            Action::SendKeys { .. } => "send_keys",
            Action::Hover { .. } => "hover",
            Action::SelectOption { .. } => "select_option",
            Action::GetDropdownOptions { .. } => "get_dropdown_options",
            Action::Scroll { .. } => "scroll",
            Action::ScrollToText { .. } => "scroll_to_text",
            Action::FindText { .. } => "find_text",
            Action::OpenTab { .. } => "open_tab",
            Action::SwitchTab { .. } => "switch_tab",
            Action::CloseTab { .. } => "close_tab",
            Action::Extract { .. } => "extract",
            Action::UploadFile { .. } => "upload_file",
            Action::Done { .. } => "done",
            Action::WriteFile { .. } => "write_file",
            Action::AppendFile { .. } => "append_file",
            Action::ReadFile { .. } => "read_file",
            Action::AskUser { .. } => "ask_user",
            Action::Drag { .. } => "drag",
        }
    }

    /// The element the action targets, if any.
    pub fn index(&self) -> Option<u32> {
        match self {
            Action::ClickElement { index, .. }
            | Action::InputText { index, .. }
            | Action::Hover { index }
            | Action::SelectOption { index, .. }
            | Action::GetDropdownOptions { index }
            | Action::UploadFile { index, .. }
            | Action::Drag { index, .. } => Some(*index),
            Action::Scroll { index, .. } => *index,
            _ => None,
        }
    }

    /// Whether the action leaves the current page (later indexed actions no longer apply).
    pub fn leaves_page(&self) -> bool {
        matches!(
            self,
            Action::GoToUrl { .. }
                | Action::Search { .. }
                | Action::GoBack
                | Action::GoForward
                | Action::Reload
                | Action::OpenTab { .. }
                | Action::SwitchTab { .. }
                | Action::CloseTab { .. }
        )
    }

    /// The form the model writes: `{"do": "click_element", "index": 5}`, the name first.
    pub fn to_json(&self) -> Value {
        let params = match self {
            Action::GoToUrl { url } | Action::OpenTab { url } => json!({ "url": url }),
            Action::Search { query } | Action::Extract { query } => json!({ "query": query }),
            Action::GoBack | Action::GoForward | Action::Reload => json!({}),
            Action::Wait { seconds } => json!({ "seconds": seconds }),
            Action::ClickElement { index, click } if click.is_single() => json!({ "index": index }),
            Action::ClickElement { index, click } => json!({ "index": index, "click": click }),
            Action::Hover { index } | Action::GetDropdownOptions { index } => json!({ "index": index }),
            Action::InputText { index, text, clear } => json!({ "index": index, "text": text, "clear": clear }),
            Action::SendKeys { keys } => json!({ "keys": keys }),
            Action::SelectOption { index, text } => json!({ "index": index, "text": text }),
            Action::Scroll { direction, pages, index } => {
                json!({ "direction": direction.as_str(), "pages": pages, "index": index })
            }
            Action::ScrollToText { text } | Action::FindText { text } => json!({ "text": text }),
            Action::SwitchTab { tab } | Action::CloseTab { tab } => json!({ "tab": tab.to_string() }),
            Action::Done { text, success } => json!({ "text": text, "success": success }),
            Action::WriteFile { name, text } | Action::AppendFile { name, text } => {
                json!({ "name": name, "text": text })
            }
            Action::ReadFile { name, start_line } => json!({ "name": name, "start_line": start_line }),
            Action::UploadFile { index, name } => json!({ "index": index, "name": name }),
            Action::AskUser { question } => json!({ "question": question }),
            Action::Drag { index, to, dx, dy } => json!({ "index": index, "to": to, "dx": dx, "dy": dy }),
        };
        let mut action = Map::from_iter([(NAME_FIELD.to_string(), Value::from(self.name()))]);
        if let Value::Object(params) = params {
            action.extend(params);
        }
        Value::Object(action)
    }

    /// Reads one action from the model, in the form it is told to write (`{"do": "click_element",
    /// "index": 3}`) or in the keyed form (`{"click_element": {"index": 3}}`) that models trained
    /// on browser-use write and older records hold.
    pub fn from_json(value: &Value) -> Result<Action, String> {
        let (name, params) = name_and_params(value).ok_or_else(|| {
            format!("each action must be an object naming the action in \"{NAME_FIELD}\", such as {{\"{NAME_FIELD}\": \"click_element\", \"index\": 3}}, got {value}")
        })?;
        let empty = Map::new();
        let params = match params {
            Value::Object(params) => params,
            // The keyed form of an action without parameters, as some models write it.
            Value::Null => &empty,
            _ => return Err(format!("the parameters of {name} must be an object")),
        };
        // Beside its name, a parameter of another action is a mistake to point out, not to drop.
        if let Some(foreign) = value.get(NAME_FIELD).and_then(|_| catalog::foreign_parameter(name, params)) {
            return Err(foreign);
        }
        let p = Params { action: name, params };
        Ok(match name {
            "go_to_url" => Action::GoToUrl { url: p.text("url", MAX_URL_CHARS, URL_TOO_LONG)? },
            "search" => {
                Action::Search { query: p.text("query", MAX_QUERY_CHARS, "search for fewer, more telling words")? }
            }
            "go_back" => Action::GoBack,
            "go_forward" => Action::GoForward,
            "reload" => Action::Reload,
            "wait" => Action::Wait { seconds: p.number("seconds")?.unwrap_or(2.0).clamp(0.0, MAX_WAIT_SECONDS) },
            "click_element" => Action::ClickElement {
                index: p.index("index")?,
                click: parse_click(p.optional_string("click")?.as_deref())?,
            },
            "input_text" => Action::InputText {
                index: p.index("index")?,
                text: p.text("text", MAX_TYPED_CHARS, TYPED_TOO_LONG)?,
                clear: p.boolean("clear")?.unwrap_or(true),
            },
            "send_keys" => {
                Action::SendKeys { keys: p.text("keys", MAX_KEYS_CHARS, "to type text into a field, use input_text")? }
            }
            "hover" => Action::Hover { index: p.index("index")? },
            "select_option" => Action::SelectOption {
                index: p.index("index")?,
                text: p.text("text", MAX_LOOKUP_CHARS, "give the option's visible text, or its first words")?,
            },
            "get_dropdown_options" => Action::GetDropdownOptions { index: p.index("index")? },
            "scroll" => Action::Scroll {
                direction: match p.optional_string("direction")? {
                    None => ScrollDirection::Down,
                    Some(d) => ScrollDirection::parse(&d)
                        .ok_or_else(|| format!("scroll.direction must be up, down, top or bottom, got \"{d}\""))?,
                },
                pages: p.number("pages")?.unwrap_or(1.0).clamp(MIN_SCROLL_PAGES, MAX_SCROLL_PAGES),
                index: p.optional_index("index")?,
            },
            "scroll_to_text" => Action::ScrollToText { text: p.text("text", MAX_LOOKUP_CHARS, LOOKUP_TOO_LONG)? },
            "find_text" => Action::FindText { text: p.text("text", MAX_LOOKUP_CHARS, LOOKUP_TOO_LONG)? },
            "open_tab" => Action::OpenTab { url: p.text("url", MAX_URL_CHARS, URL_TOO_LONG)? },
            "switch_tab" => Action::SwitchTab { tab: p.tab()? },
            "close_tab" => Action::CloseTab { tab: p.tab()? },
            "extract" => Action::Extract { query: p.text("query", MAX_QUERY_CHARS, "ask a shorter question")? },
            "upload_file" => Action::UploadFile {
                index: p.index("index")?,
                name: p.text(
                    "name",
                    MAX_LOOKUP_CHARS,
                    "give the file's name as the list of the task's files shows it",
                )?,
            },
            "done" => Action::Done {
                text: p
                    .text("text", MAX_ANSWER_CHARS, "give a shorter answer: what the user asked for, summed up")
                    .and_then(|text| match text == catalog::DONE_EXAMPLE {
                        true => Err("done.text is the example from the instructions: write the answer itself".into()),
                        false => Ok(text),
                    })?,
                success: p.boolean("success")?.unwrap_or(true),
            },
            "write_file" => {
                Action::WriteFile { name: p.file_name()?, text: p.text("text", MAX_FILE_CHARS, FILE_TOO_LONG)? }
            }
            "append_file" => {
                Action::AppendFile { name: p.file_name()?, text: p.text("text", MAX_FILE_CHARS, FILE_TOO_LONG)? }
            }
            "ask_user" => Action::AskUser { question: p.text("question", MAX_QUERY_CHARS, "ask in fewer words")? },
            "read_file" => Action::ReadFile {
                name: p.file_name()?,
                start_line: p.number("start_line")?.map(|line| line.max(1.0) as u32),
            },
            "drag" => p.drag()?,
            other => {
                return Err(format!(
                    "unknown action \"{other}\"; the available actions are {}",
                    catalog::ACTION_NAMES.join(", ")
                ))
            }
        })
    }
}

/// An action's name and its parameters (an object, or null for none) in either form the model
/// may write (see [`Action::from_json`]); `None` when it names no action. In the form with the
/// name in [`NAME_FIELD`], the parameters are the action itself, that field included.
pub fn name_and_params(value: &Value) -> Option<(&str, &Value)> {
    let object = value.as_object()?;
    match object.get(NAME_FIELD) {
        Some(name) => Some((name.as_str()?, value)),
        None if object.len() == 1 => object.iter().next().map(|(name, params)| (name.as_str(), params)),
        None => None,
    }
}

/// What to do instead of a text over its limit.
const TYPED_TOO_LONG: &str = "type the text in parts of at most that many characters, each part after the first with \"clear\": false, which appends it to the field";
const LOOKUP_TOO_LONG: &str = "look for a shorter part of it, a few distinctive words";
const FILE_TOO_LONG: &str = "write it in parts with append_file, or into several files";
const URL_TOO_LONG: &str = "open a shorter address, such as the site's own page, and use its search or forms there";

/// Typed access to an action's parameters, with errors that say exactly what is wrong.
struct Params<'a> {
    action: &'a str,
    params: &'a Map<String, Value>,
}

impl Params<'_> {
    /// The parameter, treating `null` as absent (strict schemas send every key).
    fn get(&self, key: &str) -> Option<&Value> {
        self.params.get(key).filter(|v| !v.is_null())
    }

    fn string(&self, key: &str) -> Result<String, String> {
        self.optional_string(key)?.ok_or_else(|| format!("{} needs a string parameter \"{key}\"", self.action))
    }

    /// A string of at most `max` characters; a longer one is refused with its length, the limit
    /// and what to do instead (`instead`).
    fn text(&self, key: &str, max: usize, instead: &str) -> Result<String, String> {
        let text = self.string(key)?;
        let length = text.chars().count();
        if length > max {
            return Err(format!(
                "{}.{key} is {} characters long; one {} takes at most {}: {instead}",
                self.action,
                thousands(length),
                self.action,
                thousands(max)
            ));
        }
        Ok(text)
    }

    fn optional_string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(format!("{}.{key} must be a string, got {other}", self.action)),
        }
    }

    fn number(&self, key: &str) -> Result<Option<f64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_f64()
                .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
                .filter(|n: &f64| n.is_finite())
                .map(Some)
                .ok_or_else(|| format!("{}.{key} must be a number, got {value}", self.action)),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_bool()
                .map(Some)
                .ok_or_else(|| format!("{}.{key} must be true or false, got {value}", self.action)),
        }
    }

    fn index(&self, key: &str) -> Result<u32, String> {
        self.optional_index(key)?.ok_or_else(|| format!("{} needs an \"{key}\" parameter", self.action))
    }

    fn optional_index(&self, key: &str) -> Result<Option<u32>, String> {
        let Some(value) = self.get(key) else { return Ok(None) };
        value
            .as_u64()
            .or_else(|| {
                value.as_str().and_then(|s| s.trim().trim_start_matches('*').trim_matches(['[', ']']).parse().ok())
            })
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                format!("{}.{key} must be the number of an element in the page map, got {value}", self.action)
            })
    }

    /// A drag: the element [index], dropped on [to]'s centre moved by (dx, dy), or (dx, dy) CSS
    /// pixels from where it is taken.
    fn drag(&self) -> Result<Action, String> {
        let index = self.index("index")?;
        let to = self.optional_index("to")?;
        let [dx, dy] = [self.number("dx")?.unwrap_or(0.0), self.number("dy")?.unwrap_or(0.0)];
        if to.is_none() && dx == 0.0 && dy == 0.0 {
            return Err("drag needs \"to\" (the element to drop it on) or an offset \"dx\", \"dy\" in pixels".into());
        }
        if to == Some(index) && dx == 0.0 && dy == 0.0 {
            return Err(format!("drag.to is [{index}], the element dragged: name the element to drop it on"));
        }
        if dx.abs().max(dy.abs()) > MAX_DRAG_PIXELS {
            return Err(format!(
                "a drag moves at most {} pixels each way; drag onto an element instead, or in several drags",
                thousands(MAX_DRAG_PIXELS as usize)
            ));
        }
        Ok(Action::Drag { index, to, dx, dy })
    }

    /// A file's name: the names the model knows the task's files by are short.
    fn file_name(&self) -> Result<String, String> {
        self.text("name", MAX_FILE_NAME_CHARS, "give the file's name as the list of the task's files shows it")
    }

    /// A tab's alias: `"t2"`, or `"2"` or `2` for `t2`.
    fn tab(&self) -> Result<TabAlias, String> {
        let value = self.string("tab")?;
        TabAlias::parse(&value).ok_or_else(|| {
            format!(
                "{}.tab must name an open tab as the list of open tabs does, such as \"t1\", got \"{value}\"",
                self.action
            )
        })
    }
}

#[cfg(test)]
mod tests;
