//! The agent's core, independent of any browser API.
//!
//! The extension's service worker drives it through the `agent-wasm` crate; tests drive it natively
//! with fake browsers and models. Every decision (what the page map shows, which action runs, how
//! the model's output is read) lives here so that it can be tested without a browser.
//!
//! - [`agent`]: the navigator loop and what it reports.
//! - [`llm`]: chat-model providers over an abstract HTTP client.
//! - [`markdown`]: a model's markdown as HTML safe to show.
//! - [`messages`]: the conversation kept between steps and the token budget of every request.
//! - [`tokens`]: token counts, exact for OpenAI-family models.
//! - [`dom_map`]: the indexed map of a page's interactive elements.
//! - [`actions`]: what the model may ask for and how it is validated.
//! - [`browser`]: the small interface the browser edge implements.
//! - [`files`]: the task's files: the agent's notebook, the user's attachments, downloads.
//! - [`film`]: a run's film, an animated GIF of its steps, and its bounds.
//! - [`tabs`]: the short names the model gives tabs, and which tabs it is shown.
//! - [`chats`]: past chats kept for the panel's History, and the bounds of their store.
//! - [`tasks`]: the task manager: the queue and its limit, resume, scheduled runs, AI apps.
//! - [`protocol`]: messages between the side panel and the service worker.
//! - [`mcp`]: messages between AI apps (through the MCP host) and the agent.
//! - [`settings`]: the user's provider settings.
//! - [`i18n`]: the texts the core writes for the user, translated by the panel.
//! - [`workflow`]: runs kept to run again with new inputs, and the bounds of their store.

pub mod actions;
pub mod agent;
pub mod answer;
pub mod browser;
pub mod cancel;
pub mod chats;
pub mod content;
pub mod dom_map;
pub mod files;
pub mod film;
pub mod i18n;
pub mod llm;
pub mod markdown;
pub mod mcp;
pub mod messages;
pub mod protocol;
pub mod safety;
pub mod saved;
pub mod settings;
pub mod tabs;
pub mod tasks;
pub mod text;
pub mod tokens;
pub mod workflow;
