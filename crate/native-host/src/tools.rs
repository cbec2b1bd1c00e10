//! The MCP server AI apps start: the agent's tools, each forwarded to the extension, whose core
//! runs it with the same guards as a task from the side panel.

use crate::link::{Link, Update};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, CustomRequest, CustomResult, ErrorCode, Implementation,
    ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunTaskArgs {
    /// What to do, in plain language, as you would tell a person at the browser.
    pub task: String,
    /// A page to open (in a new tab, shared with AI apps) before starting; without it the task
    /// starts in a tab the user shared with AI apps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// At most this many steps (each one a look at the page and a few actions); the user's
    /// setting when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100))]
    pub max_steps: Option<u32>,
    /// A JSON Schema for the answer: the agent then also returns it as data in that shape,
    /// checked against the schema (structuredContent.data). Types, properties, required, enums,
    /// lists, bounds and local $refs are checked; a schema with other keywords (pattern...) is
    /// refused, saying which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_json::Map<String, serde_json::Value>>,
    /// Files for the task to use (a CV to upload into a form...), their content given here: the
    /// agent never reads a path on this computer. Chrome takes at most 1 MiB in one call, so
    /// together at most about 700 KB.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<AttachedFileArg>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AttachedFileArg {
    /// The file's name, as the agent will know it (cv.pdf).
    pub name: String,
    /// Its media type (application/pdf).
    #[serde(default)]
    pub mime: String,
    /// Its content, in standard base64.
    pub data: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GetStateArgs {
    /// The tab to read, by its name in list_tabs (t1, t2, ...); it becomes the tab the other
    /// tools act on. The current tab when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClickArgs {
    /// The element's number in the latest get_state, as in [12].
    pub index: u32,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypeArgs {
    /// The field's number in the latest get_state.
    pub index: u32,
    /// The text to type, at most 100,000 characters; it replaces what the field holds.
    pub text: String,
    /// false: append the text to what the field holds instead (a longer text goes in parts, each
    /// after the first appended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SelectArgs {
    /// The dropdown's number in the latest get_state (native or custom).
    pub index: u32,
    /// The visible text of the option to choose (at most 1,000 characters).
    pub option: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDirection {
    Up,
    Down,
    Top,
    Bottom,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScrollArgs {
    /// Which way to scroll: up or down by pages, or to the top or bottom.
    pub direction: ScrollDirection,
    /// How many screenfuls, from 0.1 to 10 (1 when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<f64>,
    /// A scrollable element's number in the latest get_state; the whole page when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NavigateArgs {
    /// The address to open in the current tab (https://...), at most 8,000 characters.
    pub url: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExtractArgs {
    /// What to find in the page's whole content (not only the visible part), at most 2,000
    /// characters.
    pub query: String,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SwitchTabArgs {
    /// The tab's name in list_tabs (t1, t2, ...).
    pub tab: String,
}

/// The agent's tools, forwarded to the extension over the link.
#[derive(Clone, Default)]
pub struct BrowserAgent {
    link: Arc<Link>,
}

impl BrowserAgent {
    /// The link to the extension the tools use.
    pub fn link(&self) -> Arc<Link> {
        Arc::clone(&self.link)
    }
}

#[tool_router]
impl BrowserAgent {
    #[tool(
        description = "Carry out a whole task in the user's own Chrome (their logged-in tabs) with the browser agent: it reads the page, clicks, types and navigates step by step until done, and returns the final answer, whether it succeeded and a short summary of the steps. Sends a progress notification per step. Consequential actions (buying, sending, deleting) wait for the user's approval in the browser's side panel. Use this for anything that takes more than a click or two.",
        title = "Run a browser task",
        annotations(
            title = "Run a browser task",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn run_task(
        &self,
        Parameters(args): Parameters<RunTaskArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("run_task", &args, context).await
    }

    #[tool(
        description = "Read the current page of the user's browser as the agent sees it: its URL, title, open tabs and a numbered list of its interactive elements ([12]<button>Add to cart />), with page text between them. Call it before click, type, select or scroll, and again after them: the numbers refer to the latest get_state.",
        title = "Read the page",
        annotations(
            title = "Read the page",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_state(
        &self,
        Parameters(args): Parameters<GetStateArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("get_state", &args, context).await
    }

    #[tool(
        description = "Click the element [index] of the latest get_state.",
        title = "Click an element",
        annotations(
            title = "Click an element",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn click(&self, Parameters(args): Parameters<ClickArgs>, context: RequestContext<RoleServer>) -> CallResult {
        self.forward("click", &args, context).await
    }

    #[tool(
        name = "type",
        description = "Type text into the field [index] of the latest get_state, replacing its content (or appending to it with clear: false). At most 100,000 characters in one call.",
        title = "Type into a field",
        annotations(
            title = "Type into a field",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn type_text(
        &self,
        Parameters(args): Parameters<TypeArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("type", &args, context).await
    }

    #[tool(
        description = "Choose the option with this visible text in the dropdown [index] of the latest get_state.",
        title = "Choose an option",
        annotations(
            title = "Choose an option",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn select(
        &self,
        Parameters(args): Parameters<SelectArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("select", &args, context).await
    }

    #[tool(
        description = "Scroll the page (or the scrollable element [index]) up or down by pages, or to the top or bottom.",
        title = "Scroll",
        annotations(
            title = "Scroll",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn scroll(
        &self,
        Parameters(args): Parameters<ScrollArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("scroll", &args, context).await
    }

    #[tool(
        description = "Open a URL in the current tab and wait for it to load. The user's site settings may refuse it.",
        title = "Open a URL",
        annotations(
            title = "Open a URL",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn navigate(
        &self,
        Parameters(args): Parameters<NavigateArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("navigate", &args, context).await
    }

    #[tool(
        description = "Go back to the previous page in the current tab's history.",
        title = "Go back",
        annotations(
            title = "Go back",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn go_back(&self, context: RequestContext<RoleServer>) -> CallResult {
        self.forward("go_back", &serde_json::json!({}), context).await
    }

    #[tool(
        description = "Answer a question from the current page's whole content (not only the visible part), read by the user's configured model: prices, lists, details.",
        title = "Extract from the page",
        annotations(
            title = "Extract from the page",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn extract(
        &self,
        Parameters(args): Parameters<ExtractArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("extract", &args, context).await
    }

    #[tool(
        description = "List the tabs the user shared with AI apps in the window the agent works in, each with its name (t1, t2, ...), title and URL. The user's other tabs are never shown.",
        title = "List the tabs",
        annotations(
            title = "List the tabs",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_tabs(&self, context: RequestContext<RoleServer>) -> CallResult {
        self.forward("list_tabs", &serde_json::json!({}), context).await
    }

    #[tool(
        description = "Make another open tab (named as in list_tabs) the one the tools act on, and bring it to the front.",
        title = "Switch to a tab",
        annotations(
            title = "Switch to a tab",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn switch_tab(
        &self,
        Parameters(args): Parameters<SwitchTabArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallResult {
        self.forward("switch_tab", &args, context).await
    }

    #[tool(
        description = "Take a screenshot (JPEG) of the current tab as the user would see it.",
        title = "Take a screenshot",
        annotations(
            title = "Take a screenshot",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn screenshot(&self, context: RequestContext<RoleServer>) -> CallResult {
        self.forward("screenshot", &serde_json::json!({}), context).await
    }
}

type CallResult = Result<CallToolResult, ErrorData>;

/// Why the agent would refuse the call's arguments (a text over its limit, say), in its words,
/// so that such a call is answered at once instead of being sent to the browser.
fn refused_at_once(tool: &str, args: &serde_json::Value) -> Option<String> {
    agent_core::mcp::check_call(tool, args)
        .err()
        .map(|message| format!("The browser agent refused the request: {message}."))
}

impl BrowserAgent {
    /// Sends the call to the extension and relays what it says until the result: steps as
    /// progress notifications, a wait for the user as a progress notification. A client's
    /// cancellation stops the call in the browser.
    async fn forward<A: Serialize>(&self, tool: &str, args: &A, context: RequestContext<RoleServer>) -> CallResult {
        let args = serde_json::to_value(args).map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        if let Some(refused) = refused_at_once(tool, &args) {
            return Ok(CallToolResult::error(vec![Content::text(refused)]));
        }
        let client = context.peer.peer_info().map(|info| info.client_info.name.clone()).unwrap_or_default();
        let mut call = match self.link.call(tool, args, &client).await {
            Ok(call) => call,
            Err(message) => return Ok(CallToolResult::error(vec![Content::text(message)])),
        };
        let progress_token = context.meta.get_progress_token();
        let mut steps = 0.0;
        loop {
            let update = tokio::select! {
                update = call.updates.recv() => update,
                () = context.ct.cancelled() => {
                    call.cancel().await;
                    return Ok(CallToolResult::error(vec![Content::text("Cancelled: the browser agent was told to stop.")]));
                }
            };
            let Some(update) = update else {
                return Ok(CallToolResult::error(vec![Content::text("The browser agent's connection ended.")]));
            };
            match update {
                Update::Progress { progress, total, message } => {
                    steps = progress;
                    if let Some(token) = progress_token.clone() {
                        let mut param = ProgressNotificationParam::new(token, progress).with_message(message);
                        if let Some(total) = total {
                            param = param.with_total(total);
                        }
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                // (MCP's log notifications are deprecated; progress carries the message.)
                Update::Waiting { message } => {
                    if let Some(token) = progress_token.clone() {
                        let param = ProgressNotificationParam::new(token, steps).with_message(message);
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                Update::Result { ok, text, image, data } => {
                    let mut content = vec![Content::text(text)];
                    if let Some((media_type, base64)) = image {
                        content.push(Content::image(base64, media_type));
                    }
                    let mut result = if ok { CallToolResult::success(content) } else { CallToolResult::error(content) };
                    result.structured_content = data;
                    return Ok(result);
                }
            }
        }
    }
}

#[tool_handler]
impl ServerHandler for BrowserAgent {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
                    .with_title("Rust Browser Agent")
                    .with_description("The browser agent in the user's own Chrome, through its extension"),
            )
            .with_instructions(
                "Acts in the user's own Chrome through the Rust Browser Agent extension. Use run_task for whole tasks; for step-by-step control call get_state, then click/type/select/scroll by the element numbers it shows, and get_state again. The user must have turned the MCP setting on in the extension, allows this app in the browser's side panel on its first connection, shares the tabs it may use (\"Share this tab with AI apps\"), and approves consequential actions in the side panel.",
            )
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(custom_request(&request))
    }
}

/// What the server calls itself in its answer to `initialize`.
pub const SERVER_NAME: &str = "rust-browser-agent";

/// The answer to a request of a method MCP does not define: the stand-in for a request too large
/// to read (see `stdio`) is answered with why; any other method is unknown.
fn custom_request(request: &CustomRequest) -> ErrorData {
    if request.method != crate::stdio::TOO_LARGE_METHOD {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, format!("No method {}.", request.method), None);
    }
    let params = request.params.clone().unwrap_or_default();
    let number = |field: &str| params.get(field).and_then(serde_json::Value::as_u64).unwrap_or_default();
    let (bytes, limit) = (number("bytes"), number("limit"));
    let message = crate::stdio::too_large(bytes, limit, params.get("method").and_then(serde_json::Value::as_str));
    ErrorData::invalid_request(message, Some(serde_json::json!({"bytes": bytes, "limit": limit})))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn tools() -> Vec<rmcp::model::Tool> {
        BrowserAgent::tool_router().list_all()
    }

    fn schema_of(name: &str) -> Value {
        let tool = tools().into_iter().find(|tool| tool.name == name).unwrap_or_else(|| panic!("no tool {name}"));
        Value::Object((*tool.input_schema).clone())
    }

    #[test]
    fn every_tool_the_issue_names_is_offered_with_a_description() {
        let mut names: Vec<String> = tools().iter().map(|tool| tool.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "click",
                "extract",
                "get_state",
                "go_back",
                "list_tabs",
                "navigate",
                "run_task",
                "screenshot",
                "scroll",
                "select",
                "switch_tab",
                "type"
            ]
        );
        for tool in tools() {
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(description.len() > 30, "{} needs a description a model can use: {description:?}", tool.name);
            assert_eq!(schema_of(&tool.name)["type"], "object", "{}", tool.name);
        }
    }

    #[test]
    fn schemas_name_required_and_optional_arguments() {
        let required = |name: &str| schema_of(name)["required"].as_array().cloned().unwrap_or_default();
        assert_eq!(required("run_task"), [json!("task")]);
        let run_task = schema_of("run_task");
        assert_eq!(run_task["properties"]["task"]["type"], "string");
        assert!(run_task["properties"]["url"].is_object() && run_task["properties"]["max_steps"].is_object());
        assert_eq!(run_task["properties"]["max_steps"]["maximum"], 100);
        assert!(run_task["properties"]["output_schema"].to_string().contains("object"), "{run_task}");
        assert_eq!(run_task["properties"]["files"]["type"], "array");
        assert_eq!(required("click"), [json!("index")]);
        assert_eq!(schema_of("click")["properties"]["index"]["type"], "integer");
        assert_eq!(required("type"), [json!("index"), json!("text")]);
        assert_eq!(required("select"), [json!("index"), json!("option")]);
        assert_eq!(required("navigate"), [json!("url")]);
        assert_eq!(required("extract"), [json!("query")]);
        assert_eq!(required("switch_tab"), [json!("tab")]);
        assert!(required("get_state").is_empty() && required("go_back").is_empty());
        assert!(required("list_tabs").is_empty() && required("screenshot").is_empty());
        let scroll = schema_of("scroll").to_string();
        for direction in ["up", "down", "top", "bottom"] {
            assert!(scroll.contains(&format!("\"{direction}\"")), "scroll offers {direction}: {scroll}");
        }
        assert!(schema_of("click")["properties"]["index"]["description"].as_str().unwrap().contains("get_state"));
    }

    #[test]
    fn arguments_over_the_agent_s_limits_are_refused_before_they_reach_the_browser() {
        let limit = agent_core::actions::MAX_TYPED_CHARS;
        let args = |text: String| serde_json::to_value(TypeArgs { index: 3, text, clear: None }).unwrap();
        let refused = refused_at_once("type", &args("x".repeat(1_000_000))).unwrap();
        assert!(
            refused.starts_with("The browser agent refused the request: bad arguments: type.text is 1,000,000 characters long; one type takes at most 100,000: "),
            "{refused}"
        );
        assert_eq!(refused_at_once("type", &args("x".repeat(limit))), None);
        // The limits the tools' descriptions give are the agent's.
        let described = |tool: &str, field: &str| {
            schema_of(tool)["properties"][field]["description"].as_str().unwrap_or_default().to_string()
        };
        let thousands = agent_core::text::thousands;
        assert!(described("type", "text").contains(&thousands(limit)));
        assert!(described("select", "option").contains(&thousands(agent_core::actions::MAX_LOOKUP_CHARS)));
        assert!(described("navigate", "url").contains(&thousands(agent_core::actions::MAX_URL_CHARS)));
        assert!(described("extract", "query").contains(&thousands(agent_core::actions::MAX_QUERY_CHARS)));
        assert!(described("scroll", "pages").contains(&format!("to {}", agent_core::actions::MAX_SCROLL_PAGES)));
        assert!(described("type", "clear").contains("append"));
    }

    #[test]
    fn the_server_gives_its_product_name_version_and_instructions() {
        let info = BrowserAgent::default().get_info();
        assert_eq!(info.server_info.name, "rust-browser-agent");
        assert_eq!(info.server_info.version, env!("CARGO_PKG_VERSION"));
        assert_eq!(info.server_info.title.as_deref(), Some("Rust Browser Agent"));
        assert!(info.instructions.unwrap_or_default().contains("Use run_task for whole tasks"));
    }

    #[test]
    fn each_tool_says_truthfully_whether_it_only_reads_may_destroy_repeats_safely_and_reaches_the_web() {
        /// Title, read-only, destructive, idempotent, open world.
        type Hints = (&'static str, bool, bool, bool, bool);
        let expected: [(&str, Hints); 12] = [
            // A task may buy, send or delete (with the user's approval), anywhere on the web.
            ("run_task", ("Run a browser task", false, true, false, true)),
            // Reading what the browser shows changes nothing and asks no site for anything.
            ("get_state", ("Read the page", true, false, true, false)),
            ("list_tabs", ("List the tabs", true, false, true, false)),
            ("screenshot", ("Take a screenshot", true, false, true, false)),
            // Reads the page, but sends it to the user's model provider.
            ("extract", ("Extract from the page", true, false, true, true)),
            // A click may submit, buy or delete; typing replaces (or appends to) a field's text.
            ("click", ("Click an element", false, true, false, true)),
            ("type", ("Type into a field", false, true, false, true)),
            // Choosing the same option, opening the same address or tab again changes nothing more.
            ("select", ("Choose an option", false, false, true, true)),
            ("navigate", ("Open a URL", false, false, true, true)),
            ("switch_tab", ("Switch to a tab", false, false, true, false)),
            // Each call moves on further.
            ("scroll", ("Scroll", false, false, false, true)),
            ("go_back", ("Go back", false, false, false, true)),
        ];
        for (name, (title, read_only, destructive, idempotent, open_world)) in expected {
            let tool = tools().into_iter().find(|tool| tool.name == name).unwrap();
            let hints = tool.annotations.clone().unwrap_or_else(|| panic!("{name} has no annotations"));
            assert_eq!(
                (
                    hints.title.as_deref(),
                    hints.read_only_hint,
                    hints.destructive_hint,
                    hints.idempotent_hint,
                    hints.open_world_hint
                ),
                (Some(title), Some(read_only), Some(destructive), Some(idempotent), Some(open_world)),
                "{name}"
            );
            assert_eq!(tool.title.as_deref(), Some(title), "{name}");
        }
        assert_eq!(tools().len(), expected.len());
    }

    #[test]
    fn a_request_too_large_to_read_is_answered_with_its_size_and_the_limit() {
        let stand_in = CustomRequest::new(
            crate::stdio::TOO_LARGE_METHOD,
            Some(json!({"bytes": 17_000_000, "limit": crate::stdio::MAX_REQUEST_BYTES, "method": "tools/call"})),
        );
        let error = custom_request(&stand_in);
        assert_eq!(error.code, ErrorCode::INVALID_REQUEST);
        assert!(
            error
                .message
                .starts_with("The tool call is 17,000,000 bytes long, more than the 16,777,216 bytes (16 MiB)"),
            "{}",
            error.message
        );
        assert_eq!(error.data, Some(json!({"bytes": 17_000_000, "limit": 16_777_216})));
        let unknown = custom_request(&CustomRequest::new("other/thing", None));
        assert_eq!((unknown.code, unknown.message.as_ref()), (ErrorCode::METHOD_NOT_FOUND, "No method other/thing."));
    }

    #[test]
    fn arguments_go_to_the_extension_as_the_schema_names_them() {
        let args: RunTaskArgs = serde_json::from_value(json!({"task": "buy a mug"})).unwrap();
        assert_eq!(serde_json::to_value(&args).unwrap(), json!({"task": "buy a mug"}));
        let scroll: ScrollArgs = serde_json::from_value(json!({"direction": "down", "pages": 2})).unwrap();
        assert_eq!(serde_json::to_value(&scroll).unwrap(), json!({"direction": "down", "pages": 2.0}));
        assert!(serde_json::from_value::<ScrollArgs>(json!({"direction": "sideways"})).is_err());
        assert!(serde_json::from_value::<ClickArgs>(json!({"index": -1})).is_err());
    }
}
