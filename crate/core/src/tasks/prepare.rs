//! An agent prepared from the user's settings: its configuration, each agent's model and token
//! counter, budgets and prices, all checked before anything starts.

use super::host::Host;
use crate::agent::{Budgets, Limits, LiveLimits, Models, TaskConfig};
use crate::dom_map::MapOptions;
use crate::files::TaskFiles;
use crate::i18n::Message;
use crate::llm::context::input_budget;
use crate::llm::{AnyModel, Provider};
use crate::messages::{Budget, History};
use crate::settings::Settings;
use crate::tokens::TokenCounter;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

/// What a task (or a session an AI app drives) needs from the user's settings.
pub struct Prepared<H: Host> {
    pub config: TaskConfig,
    navigator: AnyModel<H::Http>,
    planner: AnyModel<H::Http>,
    validator: AnyModel<H::Http>,
}

impl<H: Host> Prepared<H> {
    /// `limits` are the task's, which the user's saved settings replace while it runs.
    pub async fn new(
        host: &H,
        settings: &Settings,
        task: String,
        tab: i32,
        conversation: Rc<RefCell<History>>,
        limits: &Rc<LiveLimits>,
    ) -> Result<Prepared<H>, Message> {
        settings.validate().map_err(|err| err.text())?;
        limits.start_with(limits_of(settings)?);
        let names = settings.model_names();
        let model_named = |name: &str, options| settings.model(name, options, host.http(settings.request_timeout_ms()));
        let navigator = model_named(&names[0], settings.model_options());
        let planner = model_named(&names[1], settings.agent_options(true));
        let validator = model_named(&names[2], settings.agent_options(false));
        let counters =
            agent_counters(settings, |provider, name| async move { host.token_counter(provider, &name).await }).await;
        settings.check_token_budget(&counters).map_err(|err| err.text())?;
        let budget_of = |(name, counter): &(String, TokenCounter)| Budget {
            counter: counter.clone(),
            max_input_tokens: input_budget(settings.provider, name, Some(settings.max_input_tokens)),
        };
        let budgets = Budgets {
            navigator: budget_of(&counters[0]),
            planner: budget_of(&counters[1]),
            validator: budget_of(&counters[2]),
        };
        let config = TaskConfig {
            task,
            tab,
            max_steps: settings.max_steps,
            map: MapOptions::default(),
            highlights: settings.highlights,
            search_engine: settings.search_engine,
            limits: Rc::clone(limits),
            price: settings.model_price(),
            validator_rejections: settings.validator_rejections(),
            planning_interval: Some(settings.planning_interval).filter(|&n| n > 0),
            vision: settings.vision,
            memory_interval: Some(settings.memory_interval).filter(|&n| n > 0),
            budgets,
            style: settings.request_style(),
            conversation,
            resume: None,
            on_checkpoint: None,
            on_end_tab: None,
            replay: None,
            answer_language: settings.answer_language.clone(),
            files: TaskFiles::default(),
            output_schema: None,
            film: settings.film,
        };
        Ok(Prepared { config, navigator, planner, validator })
    }

    pub fn models(&self) -> Models<'_, AnyModel<H::Http>> {
        Models { navigator: &self.navigator, planner: &self.planner, validator: &self.validator }
    }
}

/// What in the settings limits the agent.
pub fn limits_of(settings: &Settings) -> Result<Limits, Message> {
    Ok(Limits {
        policy: settings.site_policy().map_err(|err| err.text())?,
        strictness: settings.confirmations,
        site_plan: settings.site_plan,
        secrets: settings.named_secrets().map_err(|err| err.text())?,
        trusted_input: settings.trusted_input,
        ask_before_acting: settings.ask_before_acting,
    })
}

/// Each agent's model name with its token counter, as `load` gives it (its vocabulary loaded).
pub async fn agent_counters<F: Future<Output = TokenCounter>>(
    settings: &Settings,
    load: impl Fn(Provider, String) -> F,
) -> Vec<(String, TokenCounter)> {
    let mut counters = Vec::with_capacity(3);
    for name in settings.model_names() {
        let counter = load(settings.provider, name.clone()).await;
        counters.push((name, counter));
    }
    counters
}
