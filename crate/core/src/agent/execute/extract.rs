//! The `extract` action: the page's content as markdown, read in chunks by a model for the answer
//! to the query.

use super::report::{report, Outcome};
use crate::agent::navigator::Navigator;
use crate::agent::prompt::{extraction_prompt, EXTRACTION_REPLY_HINT};
use crate::agent::record::Role;
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, PageOp};
use crate::content::{chunks, to_markdown, RawContent};
use crate::files::{text_of_pdf, MAX_FILE_BYTES};
use crate::llm::repair::{outermost_object, parse_lenient};
use crate::llm::ChatModel;
use crate::text::truncate_words;
/// Extraction reads at most this many chunks of this size.
pub(super) const EXTRACT_CHUNK_TOKENS: usize = 6000;

pub(super) const EXTRACT_MAX_CHUNKS: usize = 4;

/// Longest extraction answer kept in the results.
pub(super) const EXTRACT_MAX_CHARS: usize = 3000;

/// Reads `{"found": bool, "answer": "..."}`, tolerating the wrappers models put around JSON.
pub(super) fn parse_extraction(reply: &str) -> Option<(bool, String)> {
    // Unlike other replies, a cut-off one is refused: it would report a truncated answer as found.
    let json = outermost_object(reply).filter(|json| json.ends_with('}'))?;
    let value = parse_lenient(json).ok()?;
    Some((value.get("found")?.as_bool()?, value.get("answer")?.as_str().unwrap_or_default().to_string()))
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// The text of the PDF the tab shows in the browser's viewer (whose text is not in the page).
    async fn shown_pdf_text(&self, content: &RawContent) -> Result<String, String> {
        let bytes = self.browser.shown_file(self.tab.get(), MAX_FILE_BYTES).await.map_err(|err| err.to_string())?;
        text_of_pdf(&content.title, &bytes)
    }

    pub(super) async fn extract(&self, query: &str) -> Outcome {
        let name = "extract";
        let outcome = self.perform(&PageOp::Content { frame: 0 }).await?;
        let content: RawContent = match outcome.content.as_deref().map(serde_json::from_str) {
            Some(Ok(content)) => content,
            _ => {
                return Ok(report(
                    name,
                    None,
                    false,
                    format!("Could not read the page's content: {}.", outcome.message),
                ))
            }
        };
        let markdown = match content.content_type.as_str() {
            "application/pdf" => match self.shown_pdf_text(&content).await {
                Ok(text) => text,
                Err(problem) => {
                    return Ok(report(name, None, false, format!("Could not read the PDF the tab shows: {problem}.")))
                }
            },
            _ => to_markdown(&content),
        };
        // A chunk and the instructions fit the model's budget with room to spare.
        let budget = &self.config.budgets.navigator;
        let pieces = chunks(&markdown, EXTRACT_CHUNK_TOKENS.min(budget.max_input_tokens / 2));
        let mut answers = Vec::new();
        for piece in pieces.iter().take(EXTRACT_MAX_CHUNKS) {
            let prompt = extraction_prompt(query, &self.config.limits.now().secrets.redact(piece));
            let reply = self.complete_within(Role::Extraction, self.models.navigator, budget, prompt, false).await?;
            match parse_extraction(&reply) {
                Some((true, answer)) => answers.push(answer),
                Some((false, _)) => {}
                None => {
                    return Ok(report(
                        name,
                        None,
                        false,
                        format!("The extraction reply could not be read; {EXTRACTION_REPLY_HINT}"),
                    ))
                }
            }
        }
        let skipped = pieces.len().saturating_sub(EXTRACT_MAX_CHUNKS);
        let tail = if skipped > 0 {
            format!(" (the last {skipped} parts of this very long page were not read)")
        } else {
            String::new()
        };
        Ok(if answers.is_empty() {
            report(name, None, true, format!("The page does not say anything about \"{query}\"{tail}."))
        } else {
            let answer = truncate_words(&answers.join("\n"), EXTRACT_MAX_CHARS);
            self.data_flow.borrow_mut().read_passage(&content.url, &answer);
            report(name, None, true, format!("Extracted for \"{query}\"{tail}: {answer}"))
        })
    }
}
