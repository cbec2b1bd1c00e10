//! Noticing when the agent goes round in circles: the same actions on the same page again and
//! again, or a page that stops changing however it acts. The model is told plainly, so that it
//! tries something else.

/// Repeats of the same actions on the same page before the model is told.
const SAME_ACTIONS: usize = 3;
/// Steps without any change to the page before the model is told.
const UNCHANGED_PAGE: usize = 4;

#[derive(Debug, Default)]
pub struct LoopGuard {
    /// (page, actions) of the recent steps, newest last.
    recent: Vec<(u64, String)>,
}

impl LoopGuard {
    /// Records a step (a fingerprint of the page the model saw, and its actions) and returns a
    /// nudge for the next state message when the task is going round in circles.
    pub fn record(&mut self, page: u64, actions: String) -> Option<String> {
        self.recent.push((page, actions));
        let keep = SAME_ACTIONS.max(UNCHANGED_PAGE);
        if self.recent.len() > keep {
            self.recent.remove(0);
        }
        let last = self.recent.last()?;
        let repeats = self.recent.iter().rev().take_while(|step| *step == last).count();
        if repeats >= SAME_ACTIONS {
            return Some(format!(
                "You have now taken the same actions on the same, unchanged page {repeats} times; they are not working. Do not repeat them: look at the page map again, scroll, go back, search, or try another way."
            ));
        }
        let unchanged = self.recent.iter().rev().take_while(|(p, _)| *p == last.0).count();
        (unchanged >= UNCHANGED_PAGE).then(|| {
            format!(
                "The page has not changed for {unchanged} steps, whatever you did. Your approach is not working: try a different one, or use done to explain what is blocking the task."
            )
        })
    }
}

/// A fingerprint of the text of a page map (FNV-1a).
pub fn page_fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_actions_on_the_same_page_three_times_are_called_out() {
        let mut guard = LoopGuard::default();
        assert_eq!(guard.record(1, "click 5".into()), None);
        assert_eq!(guard.record(1, "click 5".into()), None);
        let nudge = guard.record(1, "click 5".into()).unwrap();
        assert!(nudge.contains("same actions on the same, unchanged page 3 times"), "{nudge}");
        // Progress resets it.
        assert_eq!(guard.record(2, "click 5".into()), None);
    }

    #[test]
    fn a_page_that_never_changes_is_called_out() {
        let mut guard = LoopGuard::default();
        for action in ["a", "b", "c"] {
            assert_eq!(guard.record(7, action.into()), None);
        }
        assert!(guard.record(7, "d".into()).unwrap().contains("has not changed for 4 steps"));
    }
}
