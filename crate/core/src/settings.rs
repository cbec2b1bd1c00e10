//! The user's settings as the options page stores them in `chrome.storage.local`.

use crate::actions::{SearchEngine, Strictness};
use crate::agent::minimum_budget;
use crate::i18n::Text;
use crate::llm::context::input_budget;
use crate::llm::pricing::{price_of, Price};
use crate::llm::{AnyModel, Effort, HttpClient, ModelOptions, Provider};
use crate::messages::{RequestStyle, StyleChoice};
use crate::safety::{Secret, Secrets, SitePlan, SitePolicy};
use crate::text;
use crate::tokens::TokenCounter;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const DEFAULT_MAX_STEPS: u32 = 25;
const MAX_MAX_STEPS: u32 = 200;
pub const DEFAULT_PARALLEL_TASKS: u32 = 3;
const MAX_PARALLEL_TASKS: u32 = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub provider: Provider,
    /// The API root, e.g. `https://api.openai.com/v1`; may be empty for OpenAI, Anthropic and
    /// Gemini (their public endpoints), required for other OpenAI-compatible servers.
    pub base_url: String,
    pub model: String,
    /// May be empty for local servers that need none.
    pub api_key: String,
    pub max_steps: u32,
    /// How many tasks may run at once; more wait in line (see [`Settings::task_limit`]).
    pub parallel_tasks: u32,
    /// Draw numbered boxes over the elements the agent sees.
    pub highlights: bool,
    /// Where the `search` action searches.
    pub search_engine: SearchEngine,
    /// Trusted input through the debugger, for pages that ignore synthetic events (needs the
    /// optional `debugger` permission, requested by the options page).
    pub trusted_input: bool,
    /// Let AI apps (MCP clients) use the agent through the native messaging host; off by default.
    pub mcp: bool,
    /// Sites the agent may visit (domains with their subdomains, or full URL prefixes); empty
    /// means every site not denied.
    pub allow_list: Vec<String>,
    /// Sites the agent must never visit.
    pub deny_list: Vec<String>,
    /// How readily consequential actions (buying, sending, deleting...) are put to the user.
    pub confirmations: Strictness,
    /// Whether the planner's sites are confirmed and other sites shown or asked about; the user's
    /// data going to a site they did not choose always asks.
    pub site_plan: SitePlan,
    /// Named secrets the model types by placeholder, each limited to its sites.
    pub secrets: Vec<Secret>,
    /// The user's prices per model, before the built-in table.
    pub prices: Vec<ModelPrice>,
    /// Sampling temperature; the provider's default when unset.
    pub temperature: Option<f64>,
    /// For reasoning models: how hard to think (OpenAI `reasoning_effort`, Gemini thinking budget).
    pub reasoning_effort: Option<Effort>,
    /// Azure OpenAI's `api-version`.
    pub api_version: Option<String>,
    /// Check a claimed success with the validator before reporting it.
    pub validator: bool,
    /// Rejections the validator may give before the task ends as not verified.
    pub validator_retries: u32,
    /// The planner runs at the first step and every this many steps; 0 turns it off.
    pub planning_interval: u32,
    /// The planner's model, when not the navigator's (same provider).
    pub planner_model: Option<String>,
    /// The validator's model, when not the navigator's (same provider).
    pub validator_model: Option<String>,
    /// The planner's and the validator's own temperature and reasoning effort, when set.
    pub planner_temperature: Option<f64>,
    pub planner_reasoning_effort: Option<Effort>,
    pub validator_temperature: Option<f64>,
    pub validator_reasoning_effort: Option<Effort>,
    /// Show the model a screenshot each step (for models that see images).
    pub vision: bool,
    /// How long a model request may take before it counts as failed (and is tried again).
    pub request_timeout_seconds: u32,
    /// Put each step's actions to the user before they run.
    pub ask_before_acting: bool,
    /// The most input tokens a request may carry; 0 means the model's context window less the
    /// reply's reserve.
    pub max_input_tokens: u32,
    /// Full or compact instructions; automatic picks compact for small budgets.
    pub request_style: StyleChoice,
    /// The language the final answer is written in (a BCP 47 code); the extension gives the
    /// browser's when it is not set.
    pub answer_language: String,
    /// Older steps are summarised into a compact memory every this many steps; 0 means only when
    /// the history takes half the token budget.
    pub memory_interval: u32,
    /// Make a film of each run (an animated GIF of its steps), to download once it ends.
    pub film: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelPrice {
    pub model: String,
    /// Dollars per million input tokens.
    pub input: f64,
    /// Dollars per million output tokens.
    pub output: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            provider: Provider::default(),
            base_url: String::new(),
            model: String::new(),
            api_key: String::new(),
            max_steps: DEFAULT_MAX_STEPS,
            parallel_tasks: DEFAULT_PARALLEL_TASKS,
            highlights: true,
            search_engine: SearchEngine::default(),
            trusted_input: false,
            mcp: false,
            allow_list: Vec::new(),
            deny_list: Vec::new(),
            confirmations: Strictness::Normal,
            site_plan: SitePlan::Off,
            secrets: Vec::new(),
            prices: Vec::new(),
            temperature: None,
            reasoning_effort: None,
            api_version: None,
            validator: true,
            validator_retries: 2,
            planning_interval: 3,
            planner_model: None,
            validator_model: None,
            planner_temperature: None,
            planner_reasoning_effort: None,
            validator_temperature: None,
            validator_reasoning_effort: None,
            vision: false,
            request_timeout_seconds: 120,
            ask_before_acting: false,
            max_input_tokens: 0,
            request_style: StyleChoice::Auto,
            memory_interval: 10,
            answer_language: String::new(),
            film: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SettingsError {
    MissingBaseUrl,
    BadBaseUrl(String),
    MissingModel,
    BadMaxSteps(u32),
    BadSiteList {
        field: &'static str,
        problem: String,
    },
    BadSecret(String),
    BadTemperature(f64),
    /// The budget is below what the named model's requests need in this style.
    BadTokenBudget {
        budget: u32,
        minimum: usize,
        model: String,
        style: RequestStyle,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl SettingsError {
    /// What is wrong and what to enter, for the user.
    pub fn text(&self) -> Text {
        match self {
            SettingsError::MissingBaseUrl => text!("core_settings_missing_base_url"),
            SettingsError::BadBaseUrl(url) => text!("core_settings_bad_base_url", url),
            SettingsError::MissingModel => text!("core_settings_missing_model"),
            SettingsError::BadMaxSteps(n) => text!("core_settings_bad_max_steps", MAX_MAX_STEPS, *n),
            SettingsError::BadTemperature(t) => text!("core_settings_bad_temperature", *t),
            SettingsError::BadTokenBudget { budget, minimum, model, style } => {
                let style = match style {
                    RequestStyle::Full => text!("core_settings_requests_full"),
                    RequestStyle::Compact => text!("core_settings_requests_compact"),
                };
                text!("core_settings_bad_token_budget", *budget, style, model, *minimum)
            }
            SettingsError::BadSecret(problem) => text!("core_settings_bad_secret", problem),
            SettingsError::BadSiteList { problem, .. } => text!("core_settings_bad_site_list", problem),
        }
    }

    /// The settings field at fault, named as stored.
    pub fn field(&self) -> &'static str {
        match self {
            SettingsError::MissingBaseUrl | SettingsError::BadBaseUrl(_) => "baseUrl",
            SettingsError::MissingModel => "model",
            SettingsError::BadMaxSteps(_) => "maxSteps",
            SettingsError::BadSiteList { field, .. } => field,
            SettingsError::BadSecret(_) => "secrets",
            SettingsError::BadTemperature(_) => "temperature",
            SettingsError::BadTokenBudget { .. } => "maxInputTokens",
        }
    }
}

impl Settings {
    /// How many tasks may run at once, within what a browser and a model account bear (a value
    /// out of range is taken at its nearest bound rather than stopping every task).
    pub fn task_limit(&self) -> usize {
        self.parallel_tasks.clamp(1, MAX_PARALLEL_TASKS) as usize
    }

    pub fn validate(&self) -> Result<(), SettingsError> {
        let base_url = self.base_url.trim();
        if base_url.is_empty() && self.provider.needs_base_url() {
            return Err(SettingsError::MissingBaseUrl);
        }
        match url::Url::parse(base_url) {
            _ if base_url.is_empty() => {}
            Ok(url) if matches!(url.scheme(), "http" | "https") => {}
            _ => return Err(SettingsError::BadBaseUrl(base_url.to_string())),
        }
        if self.model.trim().is_empty() {
            return Err(SettingsError::MissingModel);
        }
        if !(1..=MAX_MAX_STEPS).contains(&self.max_steps) {
            return Err(SettingsError::BadMaxSteps(self.max_steps));
        }
        self.site_policy()?;
        self.named_secrets()?;
        let temperatures = [self.temperature, self.planner_temperature, self.validator_temperature];
        if let Some(t) = temperatures.into_iter().flatten().find(|t| !(0.0..=2.0).contains(t)) {
            return Err(SettingsError::BadTemperature(t));
        }
        Ok(())
    }

    /// Each agent's model: the navigator's, the planner's and the validator's.
    pub fn model_names(&self) -> [String; 3] {
        let name_of = |name: Option<&String>| -> String {
            name.map(|n| n.trim()).filter(|n| !n.is_empty()).unwrap_or(&self.model).to_string()
        };
        [name_of(None), name_of(self.planner_model.as_ref()), name_of(self.validator_model.as_ref())]
    }

    /// The style of every request, from the navigator's budget.
    pub fn request_style(&self) -> RequestStyle {
        self.request_style.style(input_budget(self.provider, &self.model, Some(self.max_input_tokens)))
    }

    /// A budget the user set must hold each agent's fixed part and a page, counted by that agent's
    /// model: `counters` holds each agent's model name ([`Settings::model_names`]) with its
    /// counter. Apart from [`Settings::validate`], as exact counters need their vocabulary loaded.
    /// With Chrome's built-in model as the provider, its window bounds the budget whether or not
    /// the user set one. (An agent of its own on it is not checked here: the minimum is the
    /// largest agent's, the navigator's, and its requests are refused when they do not fit.)
    pub fn check_token_budget(&self, counters: &[(String, TokenCounter)]) -> Result<(), SettingsError> {
        if self.max_input_tokens == 0 && self.provider != Provider::ChromeBuiltIn {
            return Ok(());
        }
        let style = self.request_style();
        let secrets = self.named_secrets()?.prompt();
        let short = counters
            .iter()
            .map(|(model, counter)| {
                let budget = input_budget(self.provider, model, Some(self.max_input_tokens));
                (minimum_budget(counter, style, secrets.as_deref()), budget, model)
            })
            .filter(|(minimum, budget, _)| budget < minimum)
            .max_by_key(|(minimum, ..)| *minimum);
        match short {
            Some((minimum, budget, model)) => {
                Err(SettingsError::BadTokenBudget { budget: budget as u32, minimum, model: model.clone(), style })
            }
            None => Ok(()),
        }
    }

    /// The validator's allowance of rejections, or `None` when it is off.
    pub fn validator_rejections(&self) -> Option<u32> {
        self.validator.then_some(self.validator_retries.min(5))
    }

    /// The user's provider's model `name`, with `options`, over `http`.
    pub fn model<Http: HttpClient>(&self, name: &str, options: ModelOptions, http: Http) -> AnyModel<Http> {
        AnyModel::new(self.provider, &self.base_url, name, &self.api_key, options, http)
    }

    /// How long a model may take to answer one request.
    pub fn request_timeout_ms(&self) -> u32 {
        self.request_timeout_seconds.max(1) * 1000
    }

    pub fn model_options(&self) -> ModelOptions {
        ModelOptions {
            temperature: self.temperature,
            reasoning_effort: self.reasoning_effort,
            api_version: self.api_version.clone().filter(|v| !v.trim().is_empty()),
        }
    }

    /// The options of the planner (`planner`) or the validator: their own where set, else the
    /// navigator's.
    pub fn agent_options(&self, planner: bool) -> ModelOptions {
        let (temperature, effort) = if planner {
            (self.planner_temperature, self.planner_reasoning_effort)
        } else {
            (self.validator_temperature, self.validator_reasoning_effort)
        };
        let base = self.model_options();
        ModelOptions {
            temperature: temperature.or(base.temperature),
            reasoning_effort: effort.or(base.reasoning_effort),
            ..base
        }
    }

    /// The price of the chosen model, if known.
    pub fn model_price(&self) -> Option<Price> {
        let mine: Vec<(String, Price)> =
            self.prices.iter().map(|p| (p.model.clone(), Price { input: p.input, output: p.output })).collect();
        price_of(&self.model, &mine)
    }

    pub fn named_secrets(&self) -> Result<Secrets, SettingsError> {
        Secrets::new(self.secrets.clone()).map_err(SettingsError::BadSecret)
    }

    pub fn site_policy(&self) -> Result<SitePolicy, SettingsError> {
        let bad = |field| move |problem| SettingsError::BadSiteList { field, problem };
        SitePolicy::new(&self.allow_list, &[]).map_err(bad("allowList"))?;
        SitePolicy::new(&[], &self.deny_list).map_err(bad("denyList"))?;
        SitePolicy::new(&self.allow_list, &self.deny_list).map_err(bad("denyList"))
    }
}

/// The setting whose change fixes the problem a text of this crate describes (a settings,
/// provider or budget error), named as stored, for the panel's "Fix in settings" button.
pub fn setting_to_fix(text: &Text) -> Option<&'static str> {
    Some(match text.key {
        "core_llm_unreachable"
        | "core_llm_malformed_response"
        | "core_settings_missing_base_url"
        | "core_settings_bad_base_url" => "baseUrl",
        "core_llm_unauthorized" => "apiKey",
        "core_llm_not_found" | "core_settings_missing_model" => "model",
        "core_settings_bad_token_budget" | "core_budget_too_small" => "maxInputTokens",
        "core_settings_bad_max_steps" => "maxSteps",
        "core_settings_bad_temperature" => "temperature",
        "core_settings_bad_secret" => "secrets",
        "core_built_in_too_long" => "maxInputTokens",
        "core_built_in_unavailable" => "provider",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> Settings {
        Settings { base_url: "http://127.0.0.1:11434/v1".into(), model: "llama3.1".into(), ..Settings::default() }
    }

    #[test]
    fn accepts_a_complete_setup_without_a_key() {
        assert_eq!(valid().validate(), Ok(()));
    }

    #[test]
    fn explains_each_missing_or_wrong_field() {
        let cases = [
            (Settings { base_url: " ".into(), ..valid() }, SettingsError::MissingBaseUrl),
            (Settings { base_url: "ftp://x".into(), ..valid() }, SettingsError::BadBaseUrl("ftp://x".into())),
            (Settings { model: "".into(), ..valid() }, SettingsError::MissingModel),
            (Settings { max_steps: 0, ..valid() }, SettingsError::BadMaxSteps(0)),
            (
                Settings { deny_list: vec!["not a site".into()], ..valid() },
                SettingsError::BadSiteList {
                    field: "denyList",
                    problem:
                        "\"not a site\" is neither a domain (example.com) nor a full URL (https://example.com/path)"
                            .into(),
                },
            ),
        ];
        for (settings, expected) in cases {
            assert_eq!(settings.validate(), Err(expected));
        }
    }

    /// Each agent's model with its vocabulary-free counter.
    fn estimated(settings: &Settings) -> Vec<(String, TokenCounter)> {
        let counter = |name: String| (name.clone(), TokenCounter::new(settings.provider, &name, None));
        settings.model_names().into_iter().map(counter).collect()
    }

    fn budget_check(settings: &Settings) -> Result<(), SettingsError> {
        settings.check_token_budget(&estimated(settings))
    }

    #[test]
    fn the_built_in_model_s_window_bounds_its_agents_even_without_a_budget_set() {
        use crate::llm::built_in::BUILT_IN_MODEL;
        let built_in =
            Settings { provider: Provider::ChromeBuiltIn, model: BUILT_IN_MODEL.into(), ..Settings::default() };
        assert_eq!(built_in.request_style(), RequestStyle::Compact);
        assert_eq!(budget_check(&built_in), Ok(()), "compact requests fit its window");
        // Full requests asked for, without a budget: held to what its window leaves for input,
        // which they fit.
        let full = Settings { request_style: StyleChoice::Full, ..built_in };
        assert_eq!(crate::llm::context::input_budget(Provider::ChromeBuiltIn, BUILT_IN_MODEL, None), 6_912);
        assert_eq!(budget_check(&full), Ok(()));
        // Only the validator on it, the navigator on a large model: its smaller requests are
        // refused when one does not fit, not every task up front.
        let validator_on_it =
            Settings { model: "gpt-4o".into(), validator_model: Some(BUILT_IN_MODEL.into()), ..valid() };
        assert_eq!(validator_on_it.request_style(), RequestStyle::Full);
        assert_eq!(budget_check(&validator_on_it), Ok(()));
    }

    #[test]
    fn a_token_budget_too_small_for_the_requests_is_refused_with_the_minimum() {
        let small = Settings { max_input_tokens: 2_000, ..valid() };
        let Err(SettingsError::BadTokenBudget { budget, minimum, model, style }) = budget_check(&small) else {
            panic!("{:?}", budget_check(&small))
        };
        assert_eq!((budget, model.as_str(), style), (2_000, "llama3.1", RequestStyle::Compact));
        assert!((2_001..=4_096).contains(&minimum), "{minimum}");
        let message = SettingsError::BadTokenBudget { budget, minimum, model, style }.to_string();
        assert!(message.contains(&format!("at least {minimum} tokens")), "{message}");
        // Exactly the minimum works; a local model's 4,096 tokens work in compact requests.
        assert_eq!(budget_check(&Settings { max_input_tokens: minimum as u32, ..valid() }), Ok(()));
        assert_eq!(budget_check(&Settings { max_input_tokens: 0, ..valid() }), Ok(()));
        assert_eq!(Settings { max_input_tokens: 4_096, ..valid() }.request_style(), RequestStyle::Compact);
        // Full requests need more.
        let full = Settings { max_input_tokens: 4_096, request_style: StyleChoice::Full, ..valid() };
        let Err(SettingsError::BadTokenBudget { minimum: full_minimum, .. }) = budget_check(&full) else { panic!() };
        assert!(full_minimum > 4_096 && full_minimum > minimum, "{full_minimum}");
        // The agent whose model counts the most tokens sets the minimum, and is named.
        let mixed = Settings { model: "gpt-4o-mini".into(), planner_model: Some("llama3.1".into()), ..small.clone() };
        let Err(SettingsError::BadTokenBudget { model, minimum: mixed_minimum, .. }) = budget_check(&mixed) else {
            panic!()
        };
        assert_eq!((model.as_str(), mixed_minimum), ("llama3.1", minimum));
        let gpt = Settings { model: "gpt-4o-mini".into(), ..small };
        let Err(SettingsError::BadTokenBudget { minimum: gpt_minimum, .. }) = budget_check(&gpt) else { panic!() };
        assert!(gpt_minimum < minimum, "{gpt_minimum} < {minimum}");
    }

    #[test]
    fn each_settings_and_provider_error_names_the_setting_that_fixes_it() {
        use crate::llm::LlmError;
        let settings_errors = [
            SettingsError::MissingBaseUrl,
            SettingsError::BadBaseUrl("x".into()),
            SettingsError::MissingModel,
            SettingsError::BadMaxSteps(0),
            SettingsError::BadSecret("x".into()),
            SettingsError::BadTemperature(3.0),
            SettingsError::BadTokenBudget { budget: 1, minimum: 2, model: "m".into(), style: RequestStyle::Full },
        ];
        for err in settings_errors {
            assert_eq!(setting_to_fix(&err.text()), Some(err.field()), "{err}");
        }
        let detail = || "d".to_string();
        let provider_errors = [
            (LlmError::Unreachable { url: "u".into(), detail: detail() }, Some("baseUrl")),
            (LlmError::Unauthorized { status: 401, detail: detail() }, Some("apiKey")),
            (LlmError::NotFound { model: "m".into(), detail: detail() }, Some("model")),
            (LlmError::MalformedResponse { detail: detail() }, Some("baseUrl")),
            (LlmError::RateLimited { detail: detail() }, None),
            (LlmError::Http { status: 500, detail: detail() }, None),
        ];
        for (err, field) in provider_errors {
            assert_eq!(setting_to_fix(&err.text()), field, "{err}");
        }
        let over = crate::messages::OverBudget { needed: 5, budget: 4 };
        assert_eq!(setting_to_fix(&over.text()), Some("maxInputTokens"));
    }

    #[test]
    fn agents_have_their_own_options_or_the_navigator_s() {
        let settings = Settings {
            temperature: Some(0.7),
            reasoning_effort: Some(Effort::Low),
            planner_reasoning_effort: Some(Effort::High),
            validator_temperature: Some(0.0),
            ..valid()
        };
        let planner = settings.agent_options(true);
        assert_eq!((planner.temperature, planner.reasoning_effort), (Some(0.7), Some(Effort::High)));
        let validator = settings.agent_options(false);
        assert_eq!((validator.temperature, validator.reasoning_effort), (Some(0.0), Some(Effort::Low)));
        let bad = Settings { planner_temperature: Some(3.0), ..valid() };
        assert_eq!(bad.validate(), Err(SettingsError::BadTemperature(3.0)));
    }

    #[test]
    fn known_providers_need_no_base_url() {
        let anthropic = Settings { provider: Provider::Anthropic, base_url: String::new(), ..valid() };
        assert_eq!(anthropic.validate(), Ok(()));
        let compatible = Settings { provider: Provider::OpenAiCompatible, base_url: String::new(), ..valid() };
        assert_eq!(compatible.validate(), Err(SettingsError::MissingBaseUrl));
        let stored: Settings = serde_json::from_str(r#"{"provider":"gemini","model":"g"}"#).unwrap();
        assert_eq!(stored.provider, Provider::Gemini);
    }

    #[test]
    fn reads_the_stored_form_with_defaults() {
        let settings: Settings = serde_json::from_str(r#"{"baseUrl":"http://a/v1","model":"m"}"#).unwrap();
        assert_eq!(settings.max_steps, DEFAULT_MAX_STEPS);
        assert_eq!(settings.task_limit(), 3);
        assert_eq!(Settings { parallel_tasks: 0, ..Settings::default() }.task_limit(), 1);
        assert_eq!(Settings { parallel_tasks: 99, ..Settings::default() }.task_limit(), 10);
        assert_eq!(settings.api_key, "");
        assert_eq!(settings.search_engine, SearchEngine::DuckDuckGo);
        let google: Settings = serde_json::from_str(r#"{"searchEngine":"google"}"#).unwrap();
        assert_eq!(google.search_engine, SearchEngine::Google);
    }
}
