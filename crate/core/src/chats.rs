//! Past chats, kept in the browser for the panel's History: what a chat keeps, and the bounds
//! that keep the whole store small.
//!
//! A chat is one conversation of one or more tasks. It keeps the events the panel was sent (as
//! their wire JSON, so that an opened chat renders exactly as it was shown, without the streamed
//! `model_output` and with only the last `usage` of each task) and the conversation's history
//! (`messages::History::to_json`) so that a later task can continue it.
//!
//! The store holds at most [`MAX_CHATS`] chats and about [`MAX_TOTAL_BYTES`] of JSON, the chats
//! updated longest ago going first. One chat is capped at [`MAX_CHAT_BYTES`] (the bulk of its
//! run records first, then its earliest tasks' events, then the oldest events of its last task),
//! so that one huge chat cannot push every other out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// At most this many chats are kept.
pub const MAX_CHATS: usize = 50;
/// About this much JSON in all (the sum of the chats' serialized lengths).
pub const MAX_TOTAL_BYTES: usize = 4 * 1024 * 1024;
/// One chat's JSON is cut down to this.
pub const MAX_CHAT_BYTES: usize = 1024 * 1024;
/// A chat's title: its first task, cut to this many characters.
pub const TITLE_CHARS: usize = 80;
/// Ids are short and plain, since each names a storage key.
const MAX_ID_CHARS: usize = 64;

/// Events that end a task.
const FINAL_EVENTS: [&str; 3] = ["result", "error", "stopped"];

/// One stored chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chat {
    pub id: String,
    pub title: String,
    /// When its first task started (milliseconds since the epoch).
    #[serde(rename = "created")]
    pub created_ms: f64,
    /// When it last changed.
    #[serde(rename = "updated")]
    pub updated_ms: f64,
    /// The events the panel was sent, as wire JSON.
    #[serde(default)]
    pub events: Vec<Value>,
    /// The conversation to continue (`messages::History::to_json`); `null` before a task ends.
    #[serde(default)]
    pub conversation: Value,
}

/// What the History list shows of a chat, and its size, kept in one index so that listing does
/// not read every chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSummary {
    pub id: String,
    pub title: String,
    pub created: f64,
    pub updated: f64,
    /// The chat's serialized length.
    pub bytes: usize,
}

/// Whether `id` can name a chat: 1 to 64 ASCII letters, digits and dashes.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_CHARS && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// A new chat's id, from the time and a random number.
pub fn new_id(now_ms: f64, random: u32) -> String {
    format!("{:x}-{random:08x}", now_ms.max(0.0) as u64)
}

/// A chat's title: the task on one line, cut at a word to at most [`TITLE_CHARS`] characters.
pub fn title_of(task: &str) -> String {
    let line = task.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TITLE_CHARS {
        return line;
    }
    let cut: String = line.chars().take(TITLE_CHARS - 1).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space >= cut.len() / 2 => &cut[..space],
        _ => &cut,
    };
    format!("{}…", at_word.trim_end())
}

fn type_of(event: &Value) -> &str {
    event.get("type").and_then(Value::as_str).unwrap_or("")
}

fn json_len(value: &impl Serialize) -> usize {
    serde_json::to_string(value).map_or(0, |text| text.len())
}

impl Chat {
    pub fn new(id: String, first_task: &str, now_ms: f64) -> Chat {
        Chat {
            id,
            title: title_of(first_task),
            created_ms: now_ms,
            updated_ms: now_ms,
            events: Vec::new(),
            conversation: Value::Null,
        }
    }

    /// Adds an event the panel was sent. Streamed replies are left out, and a task's `usage` and
    /// `files` replace the one before them (each carries the task's totals, or files, so far).
    pub fn record(&mut self, event: Value, now_ms: f64) {
        match type_of(&event) {
            // A film's frames are the host's to keep (crate::film).
            "model_output" | "hello" | "chats" | "chat" | "film_frame" => return,
            kind @ ("usage" | "files") => {
                let task_start = self.events.iter().rposition(|e| type_of(e) == "task_started").unwrap_or(0);
                if let Some(at) = self.events[task_start..].iter().rposition(|e| type_of(e) == kind) {
                    self.events.remove(task_start + at);
                }
            }
            _ => {}
        }
        self.events.push(event);
        self.updated_ms = self.updated_ms.max(now_ms);
    }

    /// Whether a task of this chat has started (a chat whose only task failed before it started
    /// is not worth keeping).
    pub fn has_task(&self) -> bool {
        self.events.iter().any(|e| matches!(type_of(e), "task_started" | "task_resumed"))
    }

    /// The serialized length, which the store's bounds count.
    pub fn json_len(&self) -> usize {
        json_len(self)
    }

    pub fn summary(&self) -> ChatSummary {
        ChatSummary {
            id: self.id.clone(),
            title: self.title.clone(),
            created: self.created_ms,
            updated: self.updated_ms,
            bytes: self.json_len(),
        }
    }

    /// Cuts the chat down to about `max_bytes` of JSON, keeping it openable and continuable: the
    /// conversation to half of that (older results first, then older steps; the tasks and the
    /// memory stay), then the bulk (record and report) of the run records, earlier tasks' first;
    /// then the earliest tasks' events, whole; then the oldest events of the last task, keeping
    /// its start, its files and its end. The `trimmed` event (`protocol::encode_trimmed`, a message of the
    /// panel's like every stored event) marks where events were left out. Returns whether
    /// anything was cut.
    pub fn cap(&mut self, max_bytes: usize, trimmed: &Value) -> bool {
        let mut cut = trim_conversation(&mut self.conversation, max_bytes / 2);
        let mut size = self.json_len();
        if size <= max_bytes {
            return cut;
        }
        // The run records' bulk, the earlier tasks' before the last one's.
        let last_start = self.events.iter().rposition(|e| type_of(e) == "task_started").unwrap_or(0);
        let mut records: Vec<usize> =
            self.events.iter().enumerate().filter(|(_, e)| type_of(e) == "run_recorded").map(|(i, _)| i).collect();
        records.sort_by_key(|&i| i >= last_start);
        for i in records {
            if size <= max_bytes {
                return true;
            }
            let event = &mut self.events[i];
            if event.get("record").is_some_and(|r| !r.is_null()) {
                let before = json_len(event);
                event["record"] = Value::Null;
                event["report"] = Value::from("");
                size -= before - json_len(event);
                cut = true;
            }
        }
        if size <= max_bytes {
            return cut;
        }
        // Whole tasks, the earliest first, while another one follows.
        let mark = self.mark_trimmed(trimmed);
        size = self.json_len();
        loop {
            let starts: Vec<usize> = self
                .events
                .iter()
                .enumerate()
                .skip(mark + 1)
                .filter(|(_, e)| type_of(e) == "task_started")
                .map(|(i, _)| i)
                .collect();
            let end = match starts.as_slice() {
                [first, second, ..] if *first == mark + 1 => *second,
                [first, ..] if *first > mark + 1 => *first,
                _ => break,
            };
            if size <= max_bytes {
                return true;
            }
            let removed: usize = self.events.drain(mark + 1..end).map(|e| json_len(&e) + 1).sum();
            size -= removed.min(size);
        }
        // The last task's oldest events, keeping its start, its end, its files and its downloads.
        let removable: Vec<(usize, usize)> = self
            .events
            .iter()
            .enumerate()
            .skip(mark + 1)
            .filter(|(_, e)| {
                !matches!(type_of(e), "task_started" | "run_recorded" | "files" | "downloaded")
                    && !FINAL_EVENTS.contains(&type_of(e))
            })
            .map(|(i, e)| (i, json_len(e) + 1))
            .collect();
        let mut drop = Vec::new();
        for (i, length) in removable {
            if size <= max_bytes {
                break;
            }
            drop.push(i);
            size -= length.min(size);
        }
        let mut index = 0;
        self.events.retain(|_| {
            index += 1;
            drop.binary_search(&(index - 1)).is_err()
        });
        true
    }

    /// Puts the `trimmed` marker first, unless it is there; returns its index.
    fn mark_trimmed(&mut self, trimmed: &Value) -> usize {
        if self.events.first().is_none_or(|e| type_of(e) != type_of(trimmed)) {
            self.events.insert(0, trimmed.clone());
        }
        0
    }
}

/// Cuts a saved conversation (`History::to_json`: turns with a `kind`) to `max_bytes`: results
/// first, then the other older turns, oldest first; the tasks, the memory and the last two turns
/// stay. Returns whether anything was cut.
fn trim_conversation(conversation: &mut Value, max_bytes: usize) -> bool {
    let Some(turns) = conversation.as_array_mut() else { return false };
    let mut size = json_len(turns);
    if size <= max_bytes {
        return false;
    }
    let kind = |turn: &Value| turn.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let keep_from = turns.len().saturating_sub(2);
    let mut drop = vec![false; turns.len()];
    for pass in ["results", ""] {
        for (i, turn) in turns.iter().enumerate().take(keep_from) {
            if size <= max_bytes {
                break;
            }
            let kind = kind(turn);
            let goes = if pass.is_empty() { kind != "task" && kind != "memory" } else { kind == pass };
            if goes && !drop[i] {
                drop[i] = true;
                size -= (json_len(turn) + 1).min(size);
            }
        }
    }
    let mut index = 0;
    turns.retain(|_| {
        index += 1;
        !drop[index - 1]
    });
    true
}

/// The summaries of the stored chats, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ChatIndex {
    chats: Vec<ChatSummary>,
}

impl ChatIndex {
    /// The index as stored; entries that cannot be read are left out.
    pub fn from_json(value: &Value) -> ChatIndex {
        let entries = value.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut index = ChatIndex::default();
        for entry in entries {
            if let Ok(summary) = serde_json::from_value::<ChatSummary>(entry.clone()) {
                if is_valid_id(&summary.id) {
                    index.upsert(summary);
                }
            }
        }
        index
    }

    pub fn summaries(&self) -> &[ChatSummary] {
        &self.chats
    }

    pub fn ids(&self) -> Vec<String> {
        self.chats.iter().map(|chat| chat.id.clone()).collect()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.chats.iter().any(|chat| chat.id == id)
    }

    /// Adds or replaces a chat's summary, keeping the newest first.
    pub fn upsert(&mut self, summary: ChatSummary) {
        self.chats.retain(|chat| chat.id != summary.id);
        let at = self.chats.iter().position(|chat| chat.updated < summary.updated).unwrap_or(self.chats.len());
        self.chats.insert(at, summary);
    }

    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.chats.len();
        self.chats.retain(|chat| chat.id != id);
        self.chats.len() != before
    }

    /// Drops the chats updated longest ago until at most [`MAX_CHATS`] and [`MAX_TOTAL_BYTES`]
    /// are left, never `keep` (the chat just saved); returns the ids dropped.
    pub fn bound(&mut self, keep: &str) -> Vec<String> {
        self.bound_to(MAX_CHATS, MAX_TOTAL_BYTES, keep)
    }

    pub fn bound_to(&mut self, max_chats: usize, max_bytes: usize, keep: &str) -> Vec<String> {
        let mut total: usize = self.chats.iter().map(|chat| chat.bytes).sum();
        let mut count = self.chats.len();
        let mut dropped = Vec::new();
        for chat in self.chats.iter().rev() {
            if count <= max_chats && total <= max_bytes {
                break;
            }
            if chat.id != keep {
                dropped.push(chat.id.clone());
                total -= chat.bytes;
                count -= 1;
            }
        }
        self.chats.retain(|chat| !dropped.contains(&chat.id));
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::encode_trimmed;
    use serde_json::json;

    fn event(kind: &str) -> Value {
        json!({"v": 1, "type": kind})
    }

    fn usage(input: u64) -> Value {
        json!({"v": 1, "type": "usage", "input_tokens": input, "output_tokens": 1, "cost": null})
    }

    fn types(chat: &Chat) -> Vec<&str> {
        chat.events.iter().map(type_of).collect()
    }

    /// A task of `steps` steps whose step events carry `text`, and a run record of `record` bytes.
    fn task(chat: &mut Chat, name: &str, steps: usize, text: &str, record: usize) {
        chat.record(json!({"v": 1, "type": "task_started", "task": name}), 0.0);
        for step in 1..=steps {
            chat.record(json!({"v": 1, "type": "step_started", "step": step}), 0.0);
            chat.record(json!({"v": 1, "type": "model_output", "text": text}), 0.0);
            chat.record(json!({"v": 1, "type": "step", "step": step, "next_goal": text}), 0.0);
            chat.record(usage(step as u64 * 100), 0.0);
        }
        let bulk = "r".repeat(record);
        chat.record(json!({"v": 1, "type": "run_recorded", "record": {"bulk": bulk}, "report": bulk}), 0.0);
        chat.record(
            json!({"v": 1, "type": "result", "success": true, "text": format!("{name} done"), "steps": steps}),
            0.0,
        );
    }

    #[test]
    fn titles_are_the_first_task_on_one_line_cut_at_a_word() {
        assert_eq!(title_of("  find the\n opening   hours "), "find the opening hours");
        let long = "add the blue mug to the cart and then tell me the cart total and the delivery date please now";
        let title = title_of(long);
        assert!(title.chars().count() <= TITLE_CHARS, "{title}");
        assert_eq!(title, "add the blue mug to the cart and then tell me the cart total and the delivery…");
        let unbroken = "x".repeat(200);
        assert_eq!(title_of(&unbroken).chars().count(), TITLE_CHARS);
        assert_eq!(title_of(&"é".repeat(100)).chars().count(), TITLE_CHARS);
    }

    #[test]
    fn ids_are_plain_and_new_ones_are_valid() {
        let id = new_id(1_700_000_000_000.0, 0xdead_beef);
        assert_eq!(id, "18bcfe56800-deadbeef");
        assert!(is_valid_id(&id));
        for bad in ["", "a b", "../x", "chat:1", &"a".repeat(65)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn a_chat_keeps_events_without_streamed_output_and_one_usage_per_task() {
        let mut chat = Chat::new("c1".into(), "buy a mug", 10.0);
        assert!(!chat.has_task());
        task(&mut chat, "buy a mug", 2, "goal", 10);
        chat.record(json!({"v": 1, "type": "task_started", "task": "and a plate"}), 20.0);
        chat.record(usage(7), 21.0);
        chat.record(usage(9), 22.0);
        chat.record(event("stopped"), 23.0);
        assert!(chat.has_task());
        assert_eq!(
            types(&chat),
            [
                "task_started",
                "step_started",
                "step",
                "step_started",
                "step",
                "usage",
                "run_recorded",
                "result",
                "task_started",
                "usage",
                "stopped"
            ]
        );
        assert_eq!(chat.events[5]["input_tokens"], 200);
        assert_eq!(chat.events[9]["input_tokens"], 9);
        assert_eq!((chat.created_ms, chat.updated_ms), (10.0, 23.0));
        assert_eq!(chat.title, "buy a mug");
    }

    #[test]
    fn a_chat_survives_saving_and_its_summary_counts_its_length() {
        let mut chat = Chat::new("c1".into(), "buy a mug", 10.0);
        task(&mut chat, "buy a mug", 1, "goal", 10);
        chat.conversation = json!([{"kind": "task", "assistant": false, "content": "Your task: buy a mug"}]);
        let text = serde_json::to_string(&chat).unwrap();
        assert!(text.contains(r#""created":10.0"#), "{text}");
        assert_eq!(serde_json::from_str::<Chat>(&text).unwrap(), chat);
        assert_eq!(chat.summary().bytes, text.len());
        assert_eq!(chat.summary().title, "buy a mug");
    }

    #[test]
    fn a_small_chat_is_not_cut() {
        let mut chat = Chat::new("c1".into(), "t", 0.0);
        task(&mut chat, "t", 3, "goal", 100);
        let before = chat.clone();
        assert!(!chat.cap(MAX_CHAT_BYTES, &encode_trimmed()));
        assert_eq!(chat, before);
    }

    #[test]
    fn run_records_of_earlier_tasks_go_first() {
        let mut chat = Chat::new("c1".into(), "one", 0.0);
        task(&mut chat, "one", 1, "goal", 5_000);
        task(&mut chat, "two", 1, "goal", 5_000);
        let limit = chat.json_len() - 4_000;
        assert!(chat.cap(limit, &encode_trimmed()));
        assert!(chat.json_len() <= limit);
        let records: Vec<&Value> = chat.events.iter().filter(|e| type_of(e) == "run_recorded").collect();
        assert_eq!(records[0]["record"], Value::Null);
        assert_eq!(records[0]["report"], "");
        assert_eq!(records[1]["record"]["bulk"].as_str().unwrap().len(), 5_000, "the last task keeps its record");
        assert_eq!(types(&chat).iter().filter(|t| **t == "task_started").count(), 2, "no task was dropped");
    }

    #[test]
    fn a_huge_chat_drops_its_earliest_tasks_then_the_oldest_steps_of_its_last() {
        let mut chat = Chat::new("c1".into(), "task 0", 0.0);
        let text = "x".repeat(1_000);
        for n in 0..30 {
            task(&mut chat, &format!("task {n}"), 10, &text, 2_000);
        }
        assert!(chat.json_len() > 300_000);
        assert!(chat.cap(100_000, &encode_trimmed()));
        assert!(chat.json_len() <= 100_000, "{}", chat.json_len());
        assert_eq!(type_of(&chat.events[0]), "trimmed");
        // The later tasks stay whole, ending with their answers.
        let kept: Vec<&str> =
            chat.events.iter().filter(|e| type_of(e) == "task_started").filter_map(|e| e["task"].as_str()).collect();
        assert!(kept.len() >= 3 && kept.len() < 30, "{kept:?}");
        assert_eq!(kept.last(), Some(&"task 29"));
        assert_eq!(chat.events.last().unwrap()["text"], "task 29 done");
        assert_eq!(type_of(&chat.events[1]), "task_started", "the chat begins at a task");

        // A single task too large on its own keeps its start and end and its latest steps.
        let mut chat = Chat::new("c2".into(), "long", 0.0);
        task(&mut chat, "long", 200, &text, 100);
        assert!(chat.cap(50_000, &encode_trimmed()));
        assert!(chat.json_len() <= 50_000);
        assert_eq!(types(&chat)[..2], ["trimmed", "task_started"]);
        assert_eq!(types(&chat).last(), Some(&"result"));
        assert_eq!(chat.events.iter().rfind(|e| type_of(e) == "step").unwrap()["step"], 200);
        // Cutting again only moves on.
        let before = chat.events.len();
        chat.cap(40_000, &encode_trimmed());
        assert_eq!(types(&chat).iter().filter(|t| **t == "trimmed").count(), 1);
        assert!(chat.events.len() < before);
    }

    #[test]
    fn a_task_keeps_its_latest_files_even_when_its_oldest_steps_are_cut() {
        let files = |rows: usize| {
            let text = "item,price\n".repeat(rows);
            json!({"v": 1, "type": "files", "files": [{"name": "items.csv", "source": "notebook", "mime": "text/csv", "size": text.len(), "text": text}]})
        };
        let mut chat = Chat::new("c1".into(), "list", 0.0);
        chat.record(json!({"v": 1, "type": "task_started", "task": "list"}), 0.0);
        let text = "x".repeat(1_000);
        for step in 1..=100 {
            chat.record(json!({"v": 1, "type": "step", "step": step, "next_goal": text}), 0.0);
            chat.record(files(step), 0.0);
        }
        chat.record(event("result"), 0.0);
        assert_eq!(types(&chat).iter().filter(|t| **t == "files").count(), 1, "only the latest files are kept");
        assert!(chat.cap(20_000, &encode_trimmed()));
        assert!(chat.json_len() <= 20_000);
        let kept = chat.events.iter().find(|e| type_of(e) == "files").expect("the files stay");
        assert_eq!(kept["files"][0]["text"], "item,price\n".repeat(100));
    }

    #[test]
    fn a_task_keeps_its_downloads_when_its_oldest_steps_are_cut() {
        let mut chat = Chat::new("c1".into(), "invoices", 0.0);
        chat.record(json!({"v": 1, "type": "task_started", "task": "invoices"}), 0.0);
        let text = "x".repeat(1_000);
        for step in 1..=100 {
            chat.record(json!({"v": 1, "type": "step", "step": step, "next_goal": text}), 0.0);
            if step % 25 == 0 {
                let name = format!("invoice-{step}.pdf");
                chat.record(json!({"v": 1, "type": "downloaded", "name": name, "mime": "application/pdf", "size": 9, "download_id": step}), 0.0);
            }
        }
        chat.record(event("result"), 0.0);
        assert!(chat.cap(20_000, &encode_trimmed()));
        // The panel offers every one of them under the answer, as it did when the task ran.
        assert_eq!(types(&chat).iter().filter(|t| **t == "downloaded").count(), 4);
    }

    #[test]
    fn the_conversation_is_cut_to_half_keeping_tasks_and_memory() {
        let mut chat = Chat::new("c1".into(), "t", 0.0);
        let big = "y".repeat(10_000);
        let mut turns = vec![json!({"kind": "task", "assistant": false, "content": "Your task: t"})];
        for _ in 0..10 {
            turns.push(json!({"kind": "output", "assistant": true, "content": "{\"actions\": []}"}));
            turns.push(json!({"kind": "results", "assistant": false, "content": big}));
        }
        turns.push(json!({"kind": "memory", "assistant": false, "content": "memory"}));
        turns.push(json!({"kind": "output", "assistant": true, "content": "last"}));
        turns.push(json!({"kind": "results", "assistant": false, "content": big}));
        chat.conversation = Value::from(turns);
        assert!(chat.cap(60_000, &encode_trimmed()));
        assert!(json_len(&chat.conversation) <= 30_000);
        let kinds: Vec<&str> =
            chat.conversation.as_array().unwrap().iter().map(|t| t["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds.first(), Some(&"task"));
        assert!(kinds.contains(&"memory"));
        assert_eq!(kinds[kinds.len() - 2..], ["output", "results"], "the last turns stay");
        assert_eq!(kinds.iter().filter(|k| **k == "results").count(), 2);
    }

    fn summary(id: &str, updated: f64, bytes: usize) -> ChatSummary {
        ChatSummary { id: id.into(), title: id.into(), created: updated, updated, bytes }
    }

    #[test]
    fn the_index_lists_newest_first_and_replaces_by_id() {
        let mut index = ChatIndex::default();
        index.upsert(summary("a", 1.0, 10));
        index.upsert(summary("b", 3.0, 10));
        index.upsert(summary("c", 2.0, 10));
        assert_eq!(index.ids(), ["b", "c", "a"]);
        index.upsert(summary("a", 4.0, 20));
        assert_eq!(index.ids(), ["a", "b", "c"]);
        assert!(index.remove("b"));
        assert!(!index.remove("b"));
        assert_eq!(index.ids(), ["a", "c"]);
        let stored = serde_json::to_value(&index).unwrap();
        assert_eq!(stored[0], json!({"id": "a", "title": "a", "created": 4.0, "updated": 4.0, "bytes": 20}));
        assert_eq!(ChatIndex::from_json(&stored), index);
        // Unreadable entries and ids that could not be keys are left out.
        let odd = json!([{"id": "x"}, {"id": "../y", "title": "", "created": 1, "updated": 1, "bytes": 1}, stored[1]]);
        assert_eq!(ChatIndex::from_json(&odd).ids(), ["c"]);
        assert_eq!(ChatIndex::from_json(&Value::Null), ChatIndex::default());
    }

    #[test]
    fn the_store_keeps_the_newest_fifty_chats_within_four_megabytes() {
        let mut index = ChatIndex::default();
        for n in 0..55 {
            index.upsert(summary(&format!("c{n}"), n as f64, 1_000));
        }
        let dropped = index.bound("c54");
        assert_eq!(dropped, ["c0", "c1", "c2", "c3", "c4"]);
        assert_eq!(index.summaries().len(), MAX_CHATS);

        // By size: the oldest go until the rest fits, the one just saved never.
        let mut index = ChatIndex::default();
        for n in 0..5 {
            index.upsert(summary(&format!("c{n}"), n as f64, 1_000_000));
        }
        assert_eq!(index.bound("c4"), ["c0"]);
        assert_eq!(index.summaries().iter().map(|c| c.bytes).sum::<usize>(), 4_000_000);
        index.upsert(summary("old", -1.0, 3_000_000));
        assert_eq!(index.bound("old"), ["c1", "c2", "c3"]);
        assert_eq!(index.ids(), ["c4", "old"]);
    }

    #[test]
    fn one_capped_chat_cannot_push_out_every_other() {
        let mut index = ChatIndex::default();
        for n in 0..10 {
            index.upsert(summary(&format!("c{n}"), n as f64, 100_000));
        }
        let mut huge = Chat::new("huge".into(), "t", 100.0);
        for n in 0..40 {
            task(&mut huge, &format!("t{n}"), 20, &"z".repeat(2_000), 20_000);
        }
        huge.cap(MAX_CHAT_BYTES, &encode_trimmed());
        index.upsert(huge.summary());
        assert!(index.bound("huge").is_empty());
        assert_eq!(index.summaries().len(), 11);
    }
}
