//! Asking the models: the navigator's request made from the history and the page, a reply that
//! cannot be used explained to the model once, and every call fitted into its budget,
//! cancellable, paused with the task, and counted.

use super::answer::{answer_problem, with_answer};
use super::history::with_latest_memory;
use super::NAVIGATOR_SCHEMA_NAME;
use super::{Navigator, StepError};
use crate::agent::events::AgentEvent;
use crate::agent::output::{parse_navigator_output, NavigatorOutput};
use crate::agent::prompt::{navigator_schema, system_prompt};
use crate::agent::record::Role;
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::llm::pricing::cost;
use crate::llm::{ChatMessage, ChatModel, ChatRequest, Image};
use crate::messages::{Budget, Kind, Part, Prompt, RequestStyle};
use crate::text;
use std::cell::Cell;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// The model's output for this step. A reply that cannot be used is explained to the model,
    /// which gets one more try at once; `Err` gives the reason and what the model was told.
    pub(super) async fn ask_for_output(
        &mut self,
        state: String,
        images: Vec<Image>,
        last_step: bool,
    ) -> Result<Result<NavigatorOutput, (String, String)>, StepError> {
        let mut reply = self.ask_model(state.clone(), images.clone(), last_step).await?;
        // Whether the model was told that its answer does not fit the output schema.
        let mut misfit_told = false;
        for attempt in 0..2 {
            let reason = match parse_navigator_output(&reply) {
                Ok(output) => match answer_problem(self.config.output_schema.as_ref(), &output) {
                    None => {
                        if attempt > 0 {
                            // The failed exchange taught what it had to; it need not stay in the history.
                            self.history.truncate(self.history.len() - 2);
                        }
                        return Ok(Ok(output));
                    }
                    // An answer that still does not fit once told ends the task: the schema may
                    // ask for what the pages do not have.
                    Some(problem) if misfit_told => {
                        return Err(StepError::Fatal(text!("core_answer_not_in_schema", problem)))
                    }
                    Some(problem) => {
                        misfit_told = true;
                        problem
                    }
                },
                Err(reason) => reason,
            };
            let problem =
                format!("Your reply could not be used: {reason}. Reply with one JSON object in the required format.");
            self.keep(Kind::Note, ChatMessage::assistant(reply.clone()));
            self.keep(Kind::Note, ChatMessage::user(problem.clone()));
            if attempt == 1 {
                return Ok(Err((reason, problem)));
            }
            reply = self.ask_model(state.clone(), images.clone(), last_step).await?;
        }
        unreachable!("the loop returns on its second pass")
    }

    pub(super) async fn ask_model(
        &self,
        state: String,
        images: Vec<Image>,
        last_step: bool,
    ) -> Result<String, StepError> {
        let mut parts = Vec::with_capacity(self.history.len() + 2);
        let instructions = system_prompt(self.config.style, self.config.limits.now().secrets.prompt().as_deref());
        parts.push(Part::new(Kind::System, ChatMessage::system(instructions)));
        parts.extend(with_latest_memory(self.history.parts_with_latest_plan()));
        // The model never sees a secret's value, whatever the page shows (the history is kept redacted).
        let state = self.config.limits.now().secrets.redact(&state);
        parts.push(Part::new(Kind::State, ChatMessage::user(state).with_images(images)));
        let (schema, strict) =
            (navigator_schema(last_step, self.config.style), self.config.style == RequestStyle::Full);
        let (schema, strict) = match &self.config.output_schema {
            Some(output) => with_answer(schema, output, strict),
            None => (schema, strict),
        };
        let prompt = Prompt { parts, schema_name: NAVIGATOR_SCHEMA_NAME.into(), schema, strict };
        self.complete_within(Role::Navigator, self.models.navigator, &self.config.budgets.navigator, prompt, true).await
    }

    /// [`Self::complete`] for a prompt fitted into `budget` first.
    pub(in crate::agent) async fn complete_within(
        &self,
        role: Role,
        model: &M,
        budget: &Budget,
        prompt: Prompt,
        stream: bool,
    ) -> Result<String, StepError> {
        let fitted = prompt.fit(budget).map_err(|err| StepError::Fatal(err.text()))?;
        self.recorder.borrow_mut().request(role, self.config.style, fitted.split, budget.counter.kind());
        if fitted.shrunk {
            self.warn_once(text!("core_warning_budget_shrunk", budget.max_input_tokens));
        }
        self.complete(role, model, &fitted.request, stream).await
    }

    /// One model call, cancellable, its usage added to the task's and reported; with `stream`, the
    /// reply is shown to the user as it arrives. A pause abandons the call, which is made again
    /// on resume.
    pub(in crate::agent) async fn complete(
        &self,
        role: Role,
        model: &M,
        request: &ChatRequest,
        stream: bool,
    ) -> Result<String, StepError> {
        const SHOW_EVERY_CHARS: usize = 24;
        let shown = Cell::new(0usize);
        let on_text = |text: &str| {
            if stream && text.len() >= shown.get() + SHOW_EVERY_CHARS {
                shown.set(text.len());
                (self.emit)(AgentEvent::ModelOutput { text: text.to_string() });
            }
        };
        let started = self.browser.now_ms();
        let outcome = loop {
            // The call is dropped (and its request aborted) before any wait for resume.
            let finished = {
                let call = std::pin::pin!(model.complete_streaming(request, &on_text));
                match futures::future::select(call, self.cancel.interrupted()).await {
                    futures::future::Either::Left((outcome, _)) => Some(outcome),
                    futures::future::Either::Right(_) => None,
                }
            };
            if let Some(outcome) = finished {
                break outcome;
            }
            if !self.cancel.is_cancelled() {
                self.wait_while_paused().await;
            }
            if self.cancel.is_cancelled() {
                return Err(StepError::Cancelled);
            }
            shown.set(0);
        };
        let usage = outcome.as_ref().ok().and_then(|reply| reply.usage);
        self.recorder.borrow_mut().model_call(role, usage, self.browser.now_ms() - started);
        match outcome {
            Err(err) => Err(StepError::Fatal(err.text())),
            Ok(reply) => {
                if let Some(usage) = reply.usage {
                    let (input, output) = self.usage.get();
                    let total = (input + usage.input_tokens, output + usage.output_tokens);
                    self.usage.set(total);
                    (self.emit)(AgentEvent::Usage {
                        input_tokens: total.0,
                        output_tokens: total.1,
                        cost: self.config.price.map(|price| cost(price, total.0, total.1)),
                    });
                }
                Ok(reply.content)
            }
        }
    }
}
