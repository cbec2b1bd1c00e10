//! Clicking and typing as the user turned it on: a long text typed in pieces, and clicks and
//! typing through the debugger (trusted input) where the page needs them.

use super::tab_closed;
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{backspace, trusted_input, Browser, BrowserError, Click, OpOutcome, PageOp};
use crate::dom_map::{ElementRef, MapElement};
use crate::llm::ChatModel;
impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Whether trusted input applies to the element: the user turned it on, and the element is in
    /// the top frame (the debugger's coordinates are the top frame's).
    pub(super) fn trusted_here(&self, element: &MapElement) -> bool {
        self.config.limits.now().trusted_input && element.target.frame_id == 0
    }

    /// Typing into the element as the user set typing up: through the debugger (trusted input)
    /// or as the sensor types.
    pub(super) async fn type_text(
        &self,
        element: &MapElement,
        text: &str,
        clear: bool,
    ) -> Result<OpOutcome, StepError> {
        let (at, tag) = (element.target.clone(), element.tag.clone());
        if self.trusted_here(element) {
            self.trusted_type(at, tag, text, clear).await
        } else {
            self.type_into(at, tag, text, clear).await
        }
    }

    /// A click through the debugger at the point the sensor finds unobstructed.
    pub(super) async fn trusted_click(
        &self,
        target: ElementRef,
        tag: String,
        click: Click,
    ) -> Result<OpOutcome, StepError> {
        let located = self.perform(&PageOp::Locate { target, tag }).await?;
        match (located.ok, located.point) {
            (true, Some([x, y])) => self.input(&trusted_input::click_at(x, y, click)).await,
            _ => Ok(located),
        }
    }

    /// Typing into the element in the operations [`PageOp::typing`] makes of the text; between
    /// two, a stop ends the task at once and a pause holds it. Gives the last one's outcome (the
    /// field's value), or the first that failed.
    pub(super) async fn type_into(
        &self,
        target: ElementRef,
        tag: String,
        text: &str,
        clear: bool,
    ) -> Result<OpOutcome, StepError> {
        let mut outcome = OpOutcome::default();
        for (i, op) in PageOp::typing(target, tag, text, clear).iter().enumerate() {
            if i > 0 {
                self.between_pieces().await?;
            }
            outcome = self.perform(op).await?;
            if !outcome.ok {
                break;
            }
        }
        Ok(outcome)
    }

    /// Between two pieces of a long typing: held while paused; a stop ends the task.
    pub(super) async fn between_pieces(&self) -> Result<(), StepError> {
        self.wait_while_paused().await;
        match self.cancel.is_cancelled() {
            true => Err(StepError::Cancelled),
            false => Ok(()),
        }
    }

    /// Typing through the debugger: focus (selecting the text to replace), insert, read the value.
    /// A long text is inserted in pieces, each after focusing the field again with its caret at
    /// the end, so that a stop is noticed between two.
    pub(super) async fn trusted_type(
        &self,
        target: ElementRef,
        tag: String,
        text: &str,
        clear: bool,
    ) -> Result<OpOutcome, StepError> {
        let mut typed = OpOutcome::default();
        let pieces = match text {
            // Nothing to insert in place of the selected text: it is erased, as a person erases it.
            "" if clear => vec![trusted_input::key_presses(&[backspace()])],
            _ => trusted_input::insert_pieces(text),
        };
        for (i, piece) in pieces.into_iter().enumerate() {
            if i > 0 {
                self.between_pieces().await?;
            }
            let clear = clear && i == 0;
            let focused = self.perform(&PageOp::Focus { target: target.clone(), tag: tag.clone(), clear }).await?;
            if !focused.ok {
                return Ok(focused);
            }
            typed = self.input(&piece).await?;
            if !typed.ok {
                return Ok(typed);
            }
        }
        let value = self.perform(&PageOp::Value { target, tag }).await?.value;
        Ok(OpOutcome { value, ..typed })
    }

    /// Sends trusted input to the current tab; a closed tab ends the task.
    pub(super) async fn input(&self, commands: &[trusted_input::InputCommand]) -> Result<OpOutcome, StepError> {
        match self.browser.input(self.tab.get(), commands).await {
            Ok(outcome) => Ok(outcome),
            Err(BrowserError::TabClosed) => Err(tab_closed()),
            Err(err) => Ok(OpOutcome { ok: false, message: err.to_string(), ..OpOutcome::default() }),
        }
    }
}
