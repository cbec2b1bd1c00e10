use crate::agent::fakes::{config, outcomes, reply, run_as, FakeShop, FakeUser, ScriptedModel};
use crate::agent::AgentEvent;
use crate::browser::PageOp;
use crate::files::MAX_FILE_BYTES;
use crate::files::{Source, TaskFiles};
use crate::llm::LlmError;
use base64::Engine;

const CV: &[u8] = b"%PDF-1.4 Ada Lovelace, analyst";

fn done() -> Result<String, LlmError> {
    reply(r#"[{"do":"done","text":"ok","success":true}]"#)
}

/// The task's files: the user's CV, an invoice the task downloaded, a scan too large to send, and
/// the agent's own notes.
fn files() -> TaskFiles {
    let mut files = TaskFiles::default();
    files.write("notes.md", "Ada Lovelace, 12 Analytical Way").unwrap();
    files.add_held("cv.pdf", Source::Attached, "application/pdf", CV.len() as u64, "a1");
    files.add_held("invoice.pdf", Source::Downloaded, "application/pdf", 900, "d1");
    files.add_held("scan.tiff", Source::Attached, "image/tiff", MAX_FILE_BYTES + 1, "a2");
    files
}

/// A shop page with a CV file input ([5]) holding the user's CV; runs the steps given, then done.
fn run_steps(steps: &[&str], approves: bool) -> (FakeShop, Vec<String>, Vec<AgentEvent>) {
    run_with_files(steps, approves, files())
}

/// As [`run_steps`], the task holding `files`.
fn run_with_files(steps: &[&str], approves: bool, files: TaskFiles) -> (FakeShop, Vec<String>, Vec<AgentEvent>) {
    let shop = FakeShop::new();
    shop.file_input.set(true);
    shop.held_files.borrow_mut().insert("a1".into(), CV.to_vec());
    let mut replies: Vec<_> = steps.iter().map(|step| reply(step)).collect();
    replies.push(done());
    let model = ScriptedModel::new(replies);
    let task = config(5);
    let task = crate::agent::TaskConfig { files, ..task };
    let user = FakeUser { approves, asked: Default::default(), reviews: Default::default() };
    let (_, events) = run_as(&task, &shop, &model, &user);
    (shop, outcomes(&events), events)
}

fn uploads(shop: &FakeShop) -> Vec<(String, String, Vec<u8>)> {
    shop.ops
        .borrow()
        .iter()
        .filter_map(|op| match op {
            PageOp::Upload { files, .. } => Some(files.clone()),
            _ => None,
        })
        .flatten()
        .map(|file| (file.name, file.mime, base64::engine::general_purpose::STANDARD.decode(file.data).unwrap()))
        .collect()
}

fn approvals(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ApprovalNeeded { question, .. } => Some(question.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_attached_file_goes_into_the_file_input_with_its_bytes_name_and_type() {
    let (shop, said, events) = run_steps(&[r#"[{"do":"upload_file","index":5,"name":"cv.pdf"}]"#], false);
    assert_eq!(said[0], "Put \"cv.pdf\" into <input> \"cv\" [5].", "{said:?}");
    assert_eq!(uploads(&shop), [("cv.pdf".to_string(), "application/pdf".to_string(), CV.to_vec())]);
    // The page is the task's own site: nothing to ask.
    assert!(approvals(&events).is_empty());
}

#[test]
fn a_file_dropped_on_a_drop_zone_is_said_to_be_dropped() {
    let (shop, said, _) = run_steps(&[r#"[{"do":"upload_file","index":3,"name":"cv.pdf"}]"#], false);
    assert_eq!(said[0], "Dropped \"cv.pdf\" onto <div> \"Color: Choose\" [3].");
    assert_eq!(uploads(&shop).len(), 1);
}

#[test]
fn the_model_sees_the_files_it_may_name() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![done()]);
    let task = crate::agent::TaskConfig { files: files(), ..config(3) };
    run_as(&task, &shop, &model, &FakeUser { approves: false, asked: Default::default(), reviews: Default::default() });
    assert!(
        model
            .state(0)
            .contains("- notes.md: notebook, 1 lines, 31 characters\n- cv.pdf: attached, application/pdf, 30 bytes\n"),
        "{}",
        model.state(0)
    );
}

#[test]
fn a_file_the_task_does_not_have_is_refused_naming_those_it_has() {
    let (shop, said, _) = run_steps(&[r#"[{"do":"upload_file","index":5,"name":"resume.pdf"}]"#], false);
    assert_eq!(
        said[0],
        "There is no file \"resume.pdf\" among the task's files; the files you may upload are \"notes.md\", \"cv.pdf\", \"scan.tiff\"."
    );
    assert!(uploads(&shop).is_empty());
}

#[test]
fn a_downloaded_file_is_not_the_user_s_to_send() {
    let (shop, said, _) = run_steps(&[r#"[{"do":"upload_file","index":5,"name":"invoice.pdf"}]"#], true);
    assert!(
        said[0].starts_with("\"invoice.pdf\" was downloaded by the task: it is not the user's to send."),
        "{said:?}"
    );
    assert!(uploads(&shop).is_empty());
}

#[test]
fn a_file_too_large_is_refused_before_it_is_read() {
    let (shop, said, _) = run_steps(&[r#"[{"do":"upload_file","index":5,"name":"scan.tiff"}]"#], true);
    assert_eq!(
        said[0],
        "\"scan.tiff\" is 10.0 MB; an upload takes at most 10.0 MB. Tell the user the file is too large to upload."
    );
    assert!(uploads(&shop).is_empty());
}

#[test]
fn a_text_field_is_no_place_for_a_file() {
    let (shop, said, _) = run_steps(&[r#"[{"do":"upload_file","index":2,"name":"cv.pdf"}]"#], true);
    assert!(
        said[0].starts_with("<textarea> [2] is a field of another kind, not a file input or a drop zone"),
        "{said:?}"
    );
    assert!(uploads(&shop).is_empty());
}

#[test]
fn an_attached_file_bound_for_a_site_the_user_did_not_choose_waits_for_their_approval() {
    let go = r#"[{"do":"go_to_url","url":"http://jobs.test/"}]"#;
    let upload = r#"[{"do":"upload_file","index":5,"name":"cv.pdf"}]"#;
    // A task holding the user's files asks before its first act toward another site.
    let (shop, said, events) = run_steps(&[go, upload], false);
    let asked = approvals(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("cv.pdf (a file you attached)") && asked[0].contains("jobs.test"), "{asked:?}");
    assert!(said[0].starts_with("The user did not allow acting on jobs.test"), "{said:?}");
    assert_eq!(*shop.url.borrow(), "http://shop.test/", "jobs.test was not opened");
    // Allowed, it goes.
    let (shop, said, events) = run_steps(&[go, upload], true);
    assert_eq!(approvals(&events).len(), 1);
    assert_eq!(said[1], "Put \"cv.pdf\" into <input> \"cv\" [5].");
    assert_eq!(uploads(&shop).len(), 1);
}

#[test]
fn a_notebook_file_is_checked_as_typed_text_and_goes_with_a_type_from_its_name() {
    let upload = r#"[{"do":"upload_file","index":5,"name":"notes.md"}]"#;
    // On the task's own site it goes as it is.
    let (shop, _, events) = run_steps(&[upload], false);
    assert!(approvals(&events).is_empty());
    assert_eq!(
        uploads(&shop),
        [("notes.md".to_string(), "text/markdown".to_string(), b"Ada Lovelace, 12 Analytical Way".to_vec())]
    );
    // Elsewhere, what the agent wrote waits for the user (the task holding nothing else of theirs).
    let go = r#"[{"do":"go_to_url","url":"http://jobs.test/"}]"#;
    let mut notes = TaskFiles::default();
    notes.write("notes.md", "Ada Lovelace, 12 Analytical Way").unwrap();
    let (shop, said, events) = run_with_files(&[go, upload], false, notes);
    let asked = approvals(&events);
    assert!(asked.len() == 1 && asked[0].contains("Ada Lovelace, 12 Analytical Way"), "{asked:?}");
    assert!(said[1].starts_with("The user did not allow sending what you wrote"), "{said:?}");
    assert!(uploads(&shop).is_empty());
}
