//! The task's files as the navigator keeps them besides the file actions: the user is shown them
//! whenever they change, and the planner's plan is kept in `todo.md` as a checklist.

use super::Navigator;
use crate::agent::events::AgentEvent;
use crate::agent::planner::Plan;
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::files::TODO;
use crate::llm::ChatModel;

/// `todo.md` keeps at most this many items already done, the latest.
const KEPT_DONE_ITEMS: usize = 30;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Shows the user the task's files when they changed since they were last shown.
    pub(super) fn show_files(&self) {
        let files = self.files.borrow();
        if *files == *self.shown_files.borrow() {
            return;
        }
        *self.shown_files.borrow_mut() = files.clone();
        (self.emit)(AgentEvent::Files { files: files.iter().cloned().collect() });
    }

    /// Writes the plan's next steps into `todo.md` as open items, the previous plan's steps now
    /// done ticked off. A todo list the notebook cannot hold is left as it was. The state leaves
    /// the file out while it is the plan's copy, the plan being in the conversation.
    pub(super) fn plan_into_todo(&self, plan: &Plan) {
        let mut files = self.files.borrow_mut();
        let todo = checklist(files.notebook_text(TODO).unwrap_or_default(), plan);
        let _ = files.write_plan(&todo);
    }
}

/// `old`, a markdown checklist, with the first `plan.steps_done` open items ticked off, the other
/// open ones replaced by the plan's next steps, and only the latest done items kept; the rest of
/// it (headings, notes) as it was.
fn checklist(old: &str, plan: &Plan) -> String {
    let mut to_tick = plan.steps_done as usize;
    let mut lines: Vec<String> = Vec::new();
    for line in old.lines() {
        match line.trim_start().strip_prefix("- [ ]") {
            Some(item) if to_tick > 0 => {
                to_tick -= 1;
                lines.push(format!("- [x]{item}"));
            }
            Some(_) => {}
            None => lines.push(line.to_string()),
        }
    }
    let done = lines.iter().filter(|line| line.starts_with("- [x]")).count();
    let mut dropped = done.saturating_sub(KEPT_DONE_ITEMS);
    lines.retain(|line| match line.starts_with("- [x]") && dropped > 0 {
        true => {
            dropped -= 1;
            false
        }
        false => true,
    });
    if lines.is_empty() {
        lines.push("# Plan".into());
    }
    lines.extend(plan.next_steps.iter().map(|step| format!("- [ ] {}", step.replace('\n', " "))));
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::fakes::{config, reply, run_with, FakeShop, ScriptedModel};
    use crate::agent::{Checkpoint, TaskConfig};
    use crate::llm::LlmError;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn append(rows: &str) -> Result<String, LlmError> {
        reply(&format!(r#"[{{"do":"append_file","name":"items.csv","text":"{rows}"}}]"#))
    }

    fn done() -> Result<String, LlmError> {
        reply(r#"[{"do":"done","text":"All in items.csv","success":true}]"#)
    }

    /// The files of each `files` event, in order.
    fn shown(events: &[AgentEvent]) -> Vec<Vec<crate::files::TaskFile>> {
        events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::Files { files } => Some(files.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_step_shows_the_outline_and_the_user_the_files_when_they_change() {
        let model = ScriptedModel::new(vec![
            append("a,1\\nb,2"),
            reply(r#"[{"do":"hover","index":2}]"#),
            append("c,3"),
            done(),
        ]);
        let (_, events) = run_with(&config(10), &FakeShop::new(), &model);
        assert!(!model.state(0).contains("read_file"), "no files, no outline: {}", model.state(0));
        assert!(model.state(1).contains("The task's files (read them with read_file; the user gets them too):\n- items.csv: notebook, 2 lines, 7 characters\n"), "{}", model.state(1));
        assert!(model.state(3).contains("- items.csv: notebook, 3 lines, 11 characters\n"), "{}", model.state(3));
        let shown = shown(&events);
        assert_eq!(shown.len(), 2, "shown when written, not when unchanged");
        assert_eq!(shown[1][0].text.as_deref(), Some("a,1\nb,2\nc,3"));
    }

    #[test]
    fn the_planners_plan_is_kept_in_todo_md_which_the_state_shows_once_the_model_changes_it() {
        let plan = r#"{"analysis":"a","progress":"p","challenges":"c","next_steps":["Open the list","Collect the items"],"steps_done":0,"web_task":true,"answer":null,"sites":[]}"#;
        let model = ScriptedModel::new(vec![
            Ok(plan.into()),
            reply(r#"[{"do":"hover","index":2}]"#),
            reply(r#"[{"do":"append_file","name":"todo.md","text":"- [ ] Check the total"}]"#),
            done(),
        ]);
        let config = TaskConfig { planning_interval: Some(5), ..config(10) };
        let (_, events) = run_with(&config, &FakeShop::new(), &model);
        // The plan, in the conversation, says its steps: the state does not say them again.
        assert!(!model.state(2).contains("todo.md"), "{}", model.state(2));
        assert!(
            model.state(3).contains(
                "Open items of todo.md:\n- [ ] Open the list\n- [ ] Collect the items\n- [ ] Check the total\n"
            ),
            "{}",
            model.state(3)
        );
        assert_eq!(
            shown(&events)[0][0].text.as_deref(),
            Some("# Plan\n- [ ] Open the list\n- [ ] Collect the items\n")
        );
    }

    #[test]
    fn a_resumed_task_has_the_notebook_of_its_checkpoint() {
        let saved = Rc::new(RefCell::new(Vec::<Checkpoint>::new()));
        let sink = Rc::clone(&saved);
        let config = TaskConfig {
            on_checkpoint: Some(Rc::new(move |checkpoint| sink.borrow_mut().push(checkpoint))),
            ..config(10)
        };
        // The worker stops while the model is asked for the third step.
        let stopped = Err(LlmError::Unreachable { url: "x".into(), detail: "the worker stopped".into() });
        let first = ScriptedModel::new(vec![append("a,1"), append("b,2"), stopped]);
        run_with(&config, &FakeShop::new(), &first);
        let checkpoint = saved.borrow().last().unwrap().clone();
        let checkpoint: Checkpoint = serde_json::from_str(&serde_json::to_string(&checkpoint).unwrap()).unwrap();
        let second = ScriptedModel::new(vec![append("c,3"), done()]);
        let resumed = TaskConfig { resume: Some(checkpoint), on_checkpoint: None, ..config.clone() };
        let (end, events) = run_with(&resumed, &FakeShop::new(), &second);
        assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
        assert!(second.state(0).contains("- items.csv: notebook, 2 lines"), "{}", second.state(0));
        assert_eq!(shown(&events).last().unwrap()[0].text.as_deref(), Some("a,1\nb,2\nc,3"));
    }

    fn plan(steps_done: u32, next_steps: &[&str]) -> Plan {
        Plan { steps_done, next_steps: next_steps.iter().map(|s| s.to_string()).collect(), ..Plan::default() }
    }

    #[test]
    fn the_plan_becomes_a_checklist_ticked_off_as_it_goes() {
        let first = checklist("", &plan(0, &["Open the list", "Collect page 1"]));
        assert_eq!(first, "# Plan\n- [ ] Open the list\n- [ ] Collect page 1\n");
        let second = checklist(&first, &plan(1, &["Collect page 1", "Collect page 2"]));
        assert_eq!(second, "# Plan\n- [x] Open the list\n- [ ] Collect page 1\n- [ ] Collect page 2\n");
        // The navigator's own notes stay.
        let noted = format!("{second}Note: prices in EUR\n");
        let third = checklist(&noted, &plan(2, &["Finish"]));
        assert_eq!(
            third,
            "# Plan\n- [x] Open the list\n- [x] Collect page 1\n- [x] Collect page 2\nNote: prices in EUR\n- [ ] Finish\n"
        );
    }

    #[test]
    fn only_the_latest_done_items_are_kept() {
        let mut todo = String::new();
        for n in 0..100 {
            todo = checklist(&todo, &plan(1, &[&format!("step {n}")]));
        }
        assert_eq!(todo.lines().filter(|line| line.starts_with("- [x]")).count(), KEPT_DONE_ITEMS);
        assert!(todo.ends_with("- [x] step 98\n- [ ] step 99\n"), "{todo}");
    }
}
