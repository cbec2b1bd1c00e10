//! How large the fixed part of every request is: the full instructions, action catalogue and
//! reply schema, or a compact form of the same rules for small token budgets (local models often
//! run with a 4,096-token window), leaving the room for the page.

use serde::{Deserialize, Serialize};

/// The form of the agents' instructions and reply schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestStyle {
    Full,
    /// Shorter instructions with the same rules, one line per action, and the navigator's reply
    /// schema in outline (its instructions give the rest).
    Compact,
}

/// The user's choice of [`RequestStyle`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StyleChoice {
    /// Compact for budgets of at most [`COMPACT_UP_TO_TOKENS`], full otherwise.
    #[default]
    Auto,
    Full,
    Compact,
}

/// The largest budget that gets compact requests when the choice is automatic: the 4k to 8k
/// windows local models are commonly run with.
pub const COMPACT_UP_TO_TOKENS: usize = 8_192;

/// What a request needs beyond its fixed part to be of use: the task, the latest steps and a
/// screenful of the page.
pub const WORKING_ROOM_TOKENS: usize = 2_000;

impl StyleChoice {
    /// The style for requests of at most `max_input_tokens`.
    pub fn style(self, max_input_tokens: usize) -> RequestStyle {
        match self {
            StyleChoice::Full => RequestStyle::Full,
            StyleChoice::Compact => RequestStyle::Compact,
            StyleChoice::Auto if max_input_tokens <= COMPACT_UP_TO_TOKENS => RequestStyle::Compact,
            StyleChoice::Auto => RequestStyle::Full,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_budgets_get_compact_requests_unless_the_user_chose() {
        assert_eq!(StyleChoice::Auto.style(4_096), RequestStyle::Compact);
        assert_eq!(StyleChoice::Auto.style(8_192), RequestStyle::Compact);
        assert_eq!(StyleChoice::Auto.style(8_193), RequestStyle::Full);
        assert_eq!(StyleChoice::Full.style(4_096), RequestStyle::Full);
        assert_eq!(StyleChoice::Compact.style(128_000), RequestStyle::Compact);
        assert_eq!(serde_json::from_str::<StyleChoice>("\"compact\"").unwrap(), StyleChoice::Compact);
    }
}
