//! A task on Chrome's built-in model that ends without success is said plainly to be perhaps
//! beyond that small model, not only reported with its error: the user can choose a larger one.

use crate::agent::AgentEvent;
use crate::settings::Settings;
use crate::text;

/// Whether the navigator runs on the built-in model.
pub fn navigator_on_built_in(settings: &Settings) -> bool {
    settings.provider.is_built_in(&settings.model_names()[0])
}

/// The note to show before `event` when it ends a task on the built-in model without success:
/// an error (a model that kept replying unusably, a request over its window) or an unfinished
/// result. None when the model is not there at all: its own error says what to do.
pub fn beyond_capability(event: &AgentEvent) -> Option<AgentEvent> {
    let failed = match event {
        AgentEvent::Error { message, .. } => message.text().is_none_or(|text| text.key != "core_built_in_unavailable"),
        AgentEvent::Result { success, .. } => !success,
        _ => false,
    };
    failed.then(|| AgentEvent::Warning { message: text!("core_built_in_beyond_capability").into() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{LlmError, Provider};

    #[test]
    fn only_a_task_on_the_built_in_model_that_failed_gets_the_note() {
        let on_built_in =
            Settings { provider: Provider::ChromeBuiltIn, model: "chrome-built-in".into(), ..Settings::default() };
        assert!(navigator_on_built_in(&on_built_in));
        let validator_only = Settings {
            provider: Provider::OpenAi,
            model: "gpt-4o".into(),
            validator_model: Some("chrome-built-in".into()),
            ..Settings::default()
        };
        assert!(!navigator_on_built_in(&validator_only), "the navigator decides what the task can do");

        let too_long = LlmError::BuiltInTooLong { requested: 9_800, window: 9_216 };
        let note = beyond_capability(&AgentEvent::Error { message: too_long.text().into(), steps: 1 });
        let Some(AgentEvent::Warning { message }) = note else { panic!("{note:?}") };
        assert!(message.contains("built-in model") && message.contains("larger model"), "{}", &*message);
        let unfinished = AgentEvent::Result { success: false, text: "not done".into(), steps: 25 };
        assert!(beyond_capability(&unfinished).is_some());

        let absent = LlmError::BuiltInUnavailable { availability: "downloadable".into() };
        assert_eq!(beyond_capability(&AgentEvent::Error { message: absent.text().into(), steps: 0 }), None);
        assert_eq!(beyond_capability(&AgentEvent::Result { success: true, text: "done".into(), steps: 3 }), None);
    }
}
