//! The run's film, when the user wants one (the `film` setting): each step's picture of the page
//! as the model saw it, the element the step acts on outlined, the fields that hold a secret
//! blacked out, and the step's goal as the caption. Sent to the host as `FilmFrame` events, which
//! pass through the same redaction as every event (a secret in the caption becomes its
//! placeholder); the host keeps the frames and makes the GIF (`crate::film`).

use super::Navigator;
use crate::actions::Action;
use crate::agent::events::AgentEvent;
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::dom_map::{MapElement, PageMap};
use crate::film::Outline;
use crate::llm::{ChatModel, Image};

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Whether this step needs a screenshot: for the model, or for the film.
    pub(super) fn wants_screenshot(&self) -> bool {
        self.config.vision || self.config.film
    }

    /// Keeps this step's screenshot for its film frame.
    pub(super) fn keep_film_shot(&self, image: &Image) {
        if self.config.film {
            *self.film_shot.borrow_mut() = Some(image.clone());
        }
    }

    /// Sends this step's film frame, when the film is on and the step had a screenshot.
    pub(super) fn film_frame(&self, step: u32, next_goal: &str, actions: &[Action], page: Option<&PageMap>) {
        let Some(image) = self.film_shot.take() else { return };
        let viewport = page.map(|page| (page.viewport.width, page.viewport.height));
        let outline_of = |element: &MapElement| {
            let (width, height) = viewport?;
            Outline::of(element.rect, width, height)
        };
        let acted = actions.iter().find_map(|action| page?.element(action.index()?));
        let masks = page
            .into_iter()
            .flat_map(PageMap::elements)
            .filter(|element| self.holds_secret(element))
            .filter_map(outline_of)
            .collect();
        let film = film_id(self.recorder.borrow().started_ms());
        (self.emit)(AgentEvent::FilmFrame {
            film,
            step,
            image: image.data_url(),
            outline: acted.and_then(outline_of),
            masks,
            caption: next_goal.to_string(),
        });
    }

    /// Whether an element shows one of the user's secrets (a field it was typed into): what the
    /// step reports redact from text is blacked out of the picture.
    fn holds_secret(&self, element: &MapElement) -> bool {
        let secrets = &self.config.limits.now().secrets;
        let shows = |text: &str| secrets.redact(text) != text;
        !secrets.is_empty() && (shows(&element.text) || element.attrs.iter().any(|(_, value)| shows(value)))
    }
}

/// The film's name among the chat's: when the run started, on the browser's clock.
fn film_id(started_ms: f64) -> String {
    format!("{started_ms:.0}")
}

#[cfg(test)]
mod tests {
    use crate::agent::fakes::{config, reply, run_with, FakeShop, ScriptedModel};
    use crate::agent::{AgentEvent, Limits, LiveLimits, TaskConfig};
    use crate::safety::{Secret, Secrets};

    /// The film frames of a run: step, caption and whether the acted element is outlined.
    fn frames(events: &[AgentEvent]) -> Vec<(u32, String, bool)> {
        events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::FilmFrame { step, caption, outline, image, .. } => {
                    assert!(image.starts_with("data:image/jpeg;base64,"), "{image}");
                    Some((*step, caption.clone(), outline.is_some()))
                }
                _ => None,
            })
            .collect()
    }

    fn record_film(events: &[AgentEvent]) -> Option<serde_json::Value> {
        events.iter().find_map(|event| match event {
            AgentEvent::RunRecorded { record, .. } => Some(record.get("film").cloned().unwrap_or_default()),
            _ => None,
        })
    }

    #[test]
    fn with_the_film_on_each_step_has_a_frame_with_its_goal_and_the_acted_element_outlined() {
        let shop = FakeShop::new();
        let model = ScriptedModel::new(vec![
            reply(r#"[{"do":"hover","index":2}]"#),
            reply(r#"[{"do":"done","text":"ok","success":true}]"#),
        ]);
        let config = TaskConfig { film: true, ..config(5) };
        let (_, events) = run_with(&config, &shop, &model);
        assert_eq!(frames(&events), [(1, "g".to_string(), true), (2, "g".to_string(), false)]);
        let film = record_film(&events).unwrap();
        assert!(film.as_str().is_some_and(|film| !film.is_empty()), "the record names its film: {film}");
        // The film's screenshots are not the model's: vision is off.
        assert!(model.requests.borrow().iter().all(|request| request.messages.iter().all(|m| m.images.is_empty())));
    }

    #[test]
    fn without_the_film_no_frame_is_sent_and_the_record_names_none() {
        let shop = FakeShop::new();
        let model = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
        let (_, events) = run_with(&config(5), &shop, &model);
        assert!(frames(&events).is_empty());
        assert_eq!(record_film(&events), Some(serde_json::Value::Null));
    }

    #[test]
    fn a_secret_in_the_goal_is_its_placeholder_in_the_caption() {
        let shop = FakeShop::new();
        let goal = r#"{"current_state":{"evaluation_previous_goal":"ok","memory":"m","next_goal":"Type Orbit-4242 in the PIN field"},"action":[{"do":"done","text":"ok","success":true}]}"#;
        let model = ScriptedModel::new(vec![Ok(goal.to_string())]);
        let secret = Secret { name: "pin".into(), value: "Orbit-4242".into(), domains: vec![] };
        let config = TaskConfig {
            film: true,
            limits: LiveLimits::new(Limits { secrets: Secrets::new(vec![secret]).unwrap(), ..Limits::default() }),
            ..config(5)
        };
        let (_, events) = run_with(&config, &shop, &model);
        assert_eq!(frames(&events), [(1, "Type <secret>pin</secret> in the PIN field".to_string(), false)]);
    }

    #[test]
    fn a_field_holding_a_secret_is_blacked_out_in_later_frames() {
        let shop = FakeShop::new();
        let model = ScriptedModel::new(vec![
            reply(r#"[{"do":"input_text","index":2,"text":"<secret>pin</secret>","clear":null}]"#),
            reply(r#"[{"do":"done","text":"ok","success":true}]"#),
        ]);
        let secret = Secret { name: "pin".into(), value: "Orbit-4242".into(), domains: vec![] };
        let config = TaskConfig {
            film: true,
            limits: LiveLimits::new(Limits { secrets: Secrets::new(vec![secret]).unwrap(), ..Limits::default() }),
            ..config(5)
        };
        let (_, events) = run_with(&config, &shop, &model);
        let masks: Vec<usize> = events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::FilmFrame { masks, .. } => Some(masks.len()),
                _ => None,
            })
            .collect();
        assert_eq!(masks, [0, 1], "the note holds the secret once it is typed");
    }
}
