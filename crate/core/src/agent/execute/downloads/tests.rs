use crate::agent::fakes::{config, outcomes, reply, run_with, FakeShop, ScriptedModel};
use crate::agent::{AgentEvent, Checkpoint, TaskConfig};
use crate::browser::Download;
use crate::files::{Source, MAX_FILE_BYTES};
use std::cell::RefCell;
use std::rc::Rc;

fn download(name: &str, mime: &str, size: u64, handle: &str) -> Download {
    Download { name: name.into(), mime: mime.into(), size, handle: handle.into(), download_id: Some(7), unread: None }
}

/// Runs a click then `done`, with `downloads` coming of the click; the events and the last
/// checkpoint (the task's files as the navigator kept them).
fn click_that_downloads(shop: &FakeShop, model: &ScriptedModel) -> (Vec<AgentEvent>, Checkpoint) {
    let saved = Rc::new(RefCell::new(Vec::<Checkpoint>::new()));
    let sink = Rc::clone(&saved);
    let config =
        TaskConfig { on_checkpoint: Some(Rc::new(move |checkpoint| sink.borrow_mut().push(checkpoint))), ..config(5) };
    let (_, events) = run_with(&config, shop, model);
    let last = saved.borrow().last().cloned().expect("a checkpoint after the click");
    (events, last)
}

fn click_then_done() -> ScriptedModel {
    ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ])
}

#[test]
fn a_download_becomes_a_task_file_the_model_is_told_of() {
    let shop = FakeShop::new();
    shop.pending_downloads.replace(vec![download("invoice.pdf", "application/pdf", 12 * 1024, "download-7")]);
    let model = click_then_done();
    let (events, checkpoint) = click_that_downloads(&shop, &model);

    let said = "Downloaded invoice.pdf (application/pdf, 12 KB); read_file reads it.";
    assert!(outcomes(&events)[0].ends_with(said), "{:?}", outcomes(&events));
    assert!(
        model.requests.borrow()[1].messages.iter().any(|m| m.content.contains(said)),
        "the next request tells the model"
    );
    let file = checkpoint.files.get("invoice.pdf").expect("a task file");
    assert_eq!((file.source, file.mime.as_str(), file.size), (Source::Downloaded, "application/pdf", 12 * 1024));
    assert_eq!(file.handle.as_deref(), Some("download-7"));
    assert!(events.contains(&AgentEvent::Downloaded {
        name: "invoice.pdf".into(),
        mime: "application/pdf".into(),
        size: 12 * 1024,
        download_id: Some(7),
    }));
    assert_eq!(shop.download_bounds.borrow()[0], MAX_FILE_BYTES, "the host is told the bound");
}

#[test]
fn a_second_file_of_the_same_name_gets_its_own_and_one_reported_again_is_kept_once() {
    let shop = FakeShop::new();
    let mut checkpoint_files = crate::files::TaskFiles::default();
    checkpoint_files.add_held("invoice.pdf", Source::Downloaded, "application/pdf", 10, "download-1");
    shop.pending_downloads.replace(vec![
        download("invoice.pdf", "application/pdf", 10, "download-1"),
        download("invoice.pdf", "application/pdf", 20, "download-2"),
    ]);
    let model = click_then_done();
    let saved = Rc::new(RefCell::new(Vec::<Checkpoint>::new()));
    let sink = Rc::clone(&saved);
    let config = TaskConfig {
        files: checkpoint_files,
        on_checkpoint: Some(Rc::new(move |checkpoint| sink.borrow_mut().push(checkpoint))),
        ..config(5)
    };
    let (_, events) = run_with(&config, &shop, &model);
    let said = &outcomes(&events)[0];
    assert!(said.ends_with("Downloaded invoice (2).pdf (application/pdf, 20 bytes); read_file reads it."), "{said}");
    assert_eq!(said.matches("Downloaded").count(), 1, "{said}");
    let files = saved.borrow().last().unwrap().files.clone();
    assert_eq!(files.iter().map(|file| file.name.as_str()).collect::<Vec<_>>(), ["invoice.pdf", "invoice (2).pdf"]);
}

#[test]
fn a_download_too_large_to_read_is_listed_and_said_to_be_so() {
    let shop = FakeShop::new();
    shop.pending_downloads.replace(vec![download("backup.zip", "application/zip", MAX_FILE_BYTES + 1, "download-3")]);
    let model = click_then_done();
    let (events, checkpoint) = click_that_downloads(&shop, &model);
    assert!(
        outcomes(&events)[0].ends_with(
            "Downloaded backup.zip (application/zip, 10.0 MB); it is too large for the agent to read (at most 10.0 MB), but the user has it."
        ),
        "{:?}",
        outcomes(&events)
    );
    assert!(checkpoint.files.get("backup.zip").is_some(), "the user is offered it all the same");
}

/// Runs a click that downloads `downloads`, then a step of each of `reads` (read_file actions),
/// then `done`; what the actions said.
fn download_then_read(downloads: Vec<Download>, held: &[(&str, &[u8])], reads: &[&str]) -> Vec<String> {
    let shop = FakeShop::new();
    shop.pending_downloads.replace(downloads);
    for (handle, bytes) in held {
        shop.held_files.borrow_mut().insert(handle.to_string(), bytes.to_vec());
    }
    let clicks = reply(r#"[{"do":"click_element","index":1,"click":null}]"#);
    let done = reply(r#"[{"do":"done","text":"ok","success":true}]"#);
    let replies = std::iter::once(clicks).chain(reads.iter().map(|read| reply(read))).chain([done]);
    let model = ScriptedModel::new(replies.collect());
    let (_, events) = run_with(&config(5), &shop, &model);
    outcomes(&events)
}

#[test]
fn a_downloaded_pdf_is_read_as_its_text() {
    let invoice: &[u8] = include_bytes!("../../../files/fixtures/invoice.pdf");
    let said = download_then_read(
        vec![download("invoice.pdf", "application/pdf", invoice.len() as u64, "download-7")],
        &[("download-7", invoice)],
        &[r#"[{"do":"read_file","name":"invoice.pdf","start_line":null}]"#],
    );
    assert!(said[1].starts_with("Read all 7 lines of the downloaded file invoice.pdf."), "{said:?}");
    assert!(said[1].contains("Item: Descaling kit (3 packs) Amount: 38.25 EUR\n"), "{said:?}");
}

#[test]
fn a_download_too_large_or_unread_is_refused_with_why() {
    let huge = download("backup.zip", "application/zip", MAX_FILE_BYTES * 3, "download-3");
    let gone = Download {
        unread: Some("the page no longer has it".into()),
        ..download("rows.csv", "text/csv", 40, "download-4")
    };
    let said = download_then_read(
        vec![huge, gone],
        &[],
        &[
            r#"[{"do":"read_file","name":"backup.zip","start_line":null}]"#,
            r#"[{"do":"read_file","name":"rows.csv","start_line":null}]"#,
        ],
    );
    assert_eq!(
        said[1],
        "Could not read backup.zip: it is 30.0 MB, larger than the 10.0 MB the agent reads; the user has the file, tell them if the task needs it."
    );
    // The host holds no bytes of it, and says why (the fake browser: that it has none).
    assert!(said[2].starts_with("Could not read rows.csv: the browser no longer holds it"), "{said:?}");
}

#[test]
fn extract_reads_the_text_of_a_pdf_the_tab_shows() {
    let shop = FakeShop::new();
    shop.shown_pdf.replace(Some(include_bytes!("../../../files/fixtures/invoice.pdf").to_vec()));
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"extract","query":"the amounts of the invoice"}]"#),
        Ok(r#"{"found":true,"answer":"149.90, 38.25, 64.00, 12.35"}"#.into()),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let (_, events) = run_with(&config(5), &shop, &model);
    let extraction = model.requests.borrow()[1].messages.iter().map(|m| m.content.clone()).collect::<String>();
    assert!(extraction.contains("Item: Milk frother replacement Amount: 64.00 EUR"), "{extraction}");
    assert_eq!(outcomes(&events)[0], "Extracted for \"the amounts of the invoice\": 149.90, 38.25, 64.00, 12.35");
}
