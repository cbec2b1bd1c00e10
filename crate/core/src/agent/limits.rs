//! What limits the agent, from the user's settings, and how a running task keeps to them as the
//! user last saved them: the task reads them at each check, and the task manager replaces them
//! when the settings are saved, rewriting the browser's blocking rules in the task's tabs.

use crate::actions::Strictness;
use crate::browser::{Browser, BrowserError, TabId};
use crate::safety::{Firewall, Secrets, SitePlan, SitePolicy};
use futures::lock::Mutex;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The settings that limit what the agent may do.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The sites the agent may visit.
    pub policy: SitePolicy,
    /// How readily consequential actions are put to the user.
    pub strictness: Strictness,
    /// How sites outside the task's plan are treated.
    pub site_plan: SitePlan,
    /// Named secrets the model may type by placeholder, each only on its sites.
    pub secrets: Secrets,
    /// Click, type and press keys through the debugger (trusted events) where the page allows.
    pub trusted_input: bool,
    /// Put each step's actions to the user before they run.
    pub ask_before_acting: bool,
}

/// A running task's limits, shared by the task, which reads them at every check, and the task
/// manager, which replaces them the moment the user saves the settings; with the tabs whose
/// browser rules enforce the site policy.
#[derive(Default)]
pub struct LiveLimits {
    now: RefCell<Rc<Limits>>,
    /// Saved settings replaced the limits since the task began: what it read when it started is
    /// older.
    replaced: Cell<bool>,
    /// The task's tabs, where the browser enforces the site policy.
    tabs: RefCell<Vec<TabId>>,
    /// Where pages may load in those tabs, as the task last judged it (none before it did).
    firewall: RefCell<Option<Firewall>>,
    /// The rules last written in those tabs.
    written: RefCell<Vec<serde_json::Value>>,
    /// One change of the browser's rules at a time, each written from the limits as they are then,
    /// so that the last change written is the latest.
    writing: Mutex<()>,
}

impl LiveLimits {
    pub fn new(limits: Limits) -> Rc<LiveLimits> {
        Rc::new(LiveLimits { now: RefCell::new(Rc::new(limits)), ..LiveLimits::default() })
    }

    /// The limits as they are at this moment.
    pub fn now(&self) -> Rc<Limits> {
        Rc::clone(&self.now.borrow())
    }

    /// The limits a task starts with, from the settings it read when it started, unless settings
    /// saved meanwhile replaced them already.
    pub fn start_with(&self, limits: Limits) {
        if !self.replaced.get() {
            *self.now.borrow_mut() = Rc::new(limits);
        }
    }

    /// The user saved new settings: the task checks `limits` from now on, and the browser's rules
    /// in its tabs are written anew.
    pub async fn replace(&self, limits: Limits, browser: &impl Browser) -> Result<(), BrowserError> {
        *self.now.borrow_mut() = Rc::new(limits);
        self.replaced.set(true);
        self.write_rules(browser).await
    }

    /// Has the browser enforce the site policy and `firewall` in `tabs` (all the task's), in place
    /// of the rules written before.
    pub async fn enforce_in(
        &self,
        tabs: &[TabId],
        firewall: Option<Firewall>,
        browser: &impl Browser,
    ) -> Result<(), BrowserError> {
        *self.tabs.borrow_mut() = tabs.to_vec();
        *self.firewall.borrow_mut() = firewall;
        self.write_rules(browser).await
    }

    /// The task is over and its rules are being removed with the rest of it: later settings no
    /// longer write any in its tabs.
    pub fn release(&self) {
        self.tabs.borrow_mut().clear();
        self.written.borrow_mut().clear();
    }

    async fn write_rules(&self, browser: &impl Browser) -> Result<(), BrowserError> {
        let _turn = self.writing.lock().await;
        let tabs = self.tabs.borrow().clone();
        let policy = &self.now().policy;
        let mut rules = policy.blocking_rules(&tabs);
        rules.extend(self.firewall.borrow().iter().flat_map(|firewall| firewall.rules(&tabs, policy)));
        if *self.written.borrow() == rules {
            return Ok(());
        }
        browser.restrict(&tabs, &rules).await?;
        *self.written.borrow_mut() = rules;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::fakes::FakeShop;
    use futures::executor::block_on;

    fn denying(site: &str) -> Limits {
        Limits { policy: SitePolicy::new(&[], &[site.to_string()]).unwrap(), ..Limits::default() }
    }

    /// The sites the rules of each `restrict` call block, with the tabs they cover.
    fn written(shop: &FakeShop) -> Vec<(Vec<TabId>, Vec<String>)> {
        let calls = shop.restricted.borrow();
        let blocked = |rules: &[serde_json::Value]| {
            let blocked = rules.iter().filter(|rule| rule["action"]["type"] == "block");
            let mut sites: Vec<String> =
                blocked.map(|rule| rule["condition"]["requestDomains"][0].as_str().unwrap().to_string()).collect();
            sites.dedup();
            sites
        };
        calls.iter().map(|(tabs, rules)| (tabs.clone(), blocked(rules))).collect()
    }

    #[test]
    fn saved_settings_replace_the_limits_and_the_rules_in_the_task_s_tabs_at_once() {
        let shop = FakeShop::new();
        let limits = LiveLimits::new(Limits::default());
        // An open policy needs no rules.
        block_on(limits.enforce_in(&[1, 2], None, &shop)).unwrap();
        assert!(written(&shop).is_empty());

        block_on(limits.replace(denying("evil.test"), &shop)).unwrap();
        assert!(limits.now().policy.check("https://evil.test/").is_err());
        block_on(limits.replace(denying("other.test"), &shop)).unwrap();
        assert!(limits.now().policy.check("https://evil.test/").is_ok());
        // Lists emptied: the rules are removed from the tabs.
        block_on(limits.replace(Limits::default(), &shop)).unwrap();
        let tabs = vec![1, 2];
        assert_eq!(
            written(&shop),
            [(tabs.clone(), vec!["evil.test".into()]), (tabs.clone(), vec!["other.test".into()]), (tabs, vec![])]
        );
    }

    #[test]
    fn the_settings_a_task_read_at_its_start_do_not_undo_those_saved_since() {
        let limits = LiveLimits::new(Limits::default());
        block_on(limits.replace(denying("evil.test"), &FakeShop::new())).unwrap();
        limits.start_with(Limits::default());
        assert!(limits.now().policy.check("https://evil.test/").is_err());
    }

    #[test]
    fn a_task_over_gets_no_rules_from_later_settings() {
        let shop = FakeShop::new();
        let limits = LiveLimits::new(denying("evil.test"));
        block_on(limits.enforce_in(&[1], None, &shop)).unwrap();
        limits.release();
        block_on(limits.replace(denying("other.test"), &shop)).unwrap();
        assert_eq!(written(&shop), [(vec![1], vec!["evil.test".to_string()])]);
    }
}
