//! Schedules: a stored workflow run by itself, once or again every hour, day or week, from a first
//! time the user picks. The extension keeps one alarm per schedule (`chrome.alarms`); this module
//! checks schedules and says when each alarm is due.

use super::Workflow;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// How often a schedule runs its workflow.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    Once,
    Hourly,
    Daily,
    Weekly,
}

impl Repeat {
    /// The time between runs, in minutes (none for a single run).
    pub fn period_minutes(self) -> Option<u32> {
        match self {
            Repeat::Once => None,
            Repeat::Hourly => Some(60),
            Repeat::Daily => Some(24 * 60),
            Repeat::Weekly => Some(7 * 24 * 60),
        }
    }
}

/// A workflow's schedule (one per workflow, named by the workflow's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    pub workflow: String,
    /// The parameters' values for the scheduled runs.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    pub repeat: Repeat,
    /// The first run, in milliseconds since the epoch; later runs keep its time of day (and day
    /// of the week).
    pub first_ms: f64,
}

/// When a schedule's alarm is due, as `chrome.alarms.create` takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alarm {
    pub when: f64,
    #[serde(rename = "periodInMinutes", skip_serializing_if = "Option::is_none")]
    pub period_in_minutes: Option<u32>,
}

/// A single run missed by at most this much (a browser asleep at the time) still runs.
const LATE_MS: f64 = 60_000.0;

impl Schedule {
    /// A schedule read from storage or the panel, checked against the stored workflows: its
    /// workflow exists and takes its values.
    pub fn from_json(value: &Value, workflows: &[Value]) -> Result<Schedule, String> {
        let schedule: Schedule =
            serde_json::from_value(value.clone()).map_err(|err| format!("this is not a schedule ({err})"))?;
        if !schedule.first_ms.is_finite() || schedule.first_ms <= 0.0 {
            return Err("the first run needs a date and a time".into());
        }
        let workflow = workflows
            .iter()
            .find(|workflow| workflow["name"] == schedule.workflow.as_str())
            .ok_or_else(|| format!("there is no workflow \"{}\" to schedule", schedule.workflow))?;
        let values: Vec<(String, String)> = schedule.values.clone().into_iter().collect();
        Workflow::from_json(workflow)?.instantiate(&values)?;
        Ok(schedule)
    }

    /// The alarm for the next run at or after `now_ms`, or none when a single run is long past.
    pub fn alarm(&self, now_ms: f64) -> Option<Alarm> {
        let period_in_minutes = self.repeat.period_minutes();
        let when = match period_in_minutes {
            _ if self.first_ms >= now_ms => self.first_ms,
            None if now_ms - self.first_ms <= LATE_MS => now_ms,
            None => return None,
            Some(minutes) => {
                let period = f64::from(minutes) * 60_000.0;
                self.first_ms + ((now_ms - self.first_ms) / period).ceil() * period
            }
        };
        Some(Alarm { when, period_in_minutes })
    }
}

/// The stored schedules (`stored`) with `schedule` in place of its workflow's earlier one, all
/// checked against the stored workflows; a schedule whose workflow is gone is dropped.
pub fn set_schedule(stored: &[Value], workflows: &[Value], schedule: &Value) -> Result<Vec<Schedule>, String> {
    let schedule = Schedule::from_json(schedule, workflows)?;
    let mut kept: Vec<Schedule> = stored
        .iter()
        .filter_map(|stored| Schedule::from_json(stored, workflows).ok())
        .filter(|stored| stored.workflow != schedule.workflow)
        .collect();
    kept.push(schedule);
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HOUR: f64 = 3_600_000.0;

    fn workflows() -> Vec<Value> {
        let record = json!({"task": "find blue", "outcome": {"type": "result", "success": true}, "steps": [{"planned": [
            {"action": {"input_text": {"index": 2, "text": "blue"}}, "element": {"fingerprint": "00000000000000aa", "description": "<input> \"Search\" [2]"}}
        ]}]});
        let mut workflow = Workflow::propose(&record).unwrap();
        workflow.name = "Find a mug".into();
        vec![serde_json::to_value(workflow).unwrap()]
    }

    fn schedule(repeat: &str, first_ms: f64) -> Value {
        json!({"workflow": "Find a mug", "values": {"search": "red"}, "repeat": repeat, "first_ms": first_ms})
    }

    #[test]
    fn a_schedule_names_a_stored_workflow_and_values_it_takes() {
        let read = Schedule::from_json(&schedule("daily", 5.0 * HOUR), &workflows()).unwrap();
        assert_eq!((read.repeat, read.values["search"].as_str()), (Repeat::Daily, "red"));
        let other = json!({"workflow": "Other", "repeat": "once", "first_ms": 1.0});
        assert_eq!(Schedule::from_json(&other, &workflows()), Err("there is no workflow \"Other\" to schedule".into()));
        let wrong = json!({"workflow": "Find a mug", "values": {"colour": "red"}, "repeat": "once", "first_ms": 1.0});
        assert!(Schedule::from_json(&wrong, &workflows()).unwrap_err().contains("no parameter \"colour\""));
        let never = json!({"workflow": "Find a mug", "repeat": "yearly", "first_ms": 1.0});
        assert!(Schedule::from_json(&never, &workflows()).unwrap_err().starts_with("this is not a schedule"));
        let undated = schedule("once", 0.0);
        assert_eq!(Schedule::from_json(&undated, &workflows()), Err("the first run needs a date and a time".into()));
    }

    #[test]
    fn the_alarm_is_the_next_run_at_the_first_run_s_time() {
        let at = |repeat: &str, first: f64, now: f64| {
            Schedule::from_json(&schedule(repeat, first), &workflows()).unwrap().alarm(now)
        };
        let first = 100.0 * HOUR + 0.5 * HOUR;
        // Before the first run: the first run.
        assert_eq!(at("weekly", first, 90.0 * HOUR), Some(Alarm { when: first, period_in_minutes: Some(10_080) }));
        // Later: the next whole period after it.
        assert_eq!(at("hourly", first, first + 2.2 * HOUR).unwrap().when, first + 3.0 * HOUR);
        assert_eq!(at("daily", first, first + 30.0 * HOUR).unwrap().when, first + 48.0 * HOUR);
        assert_eq!(at("daily", first, first + 30.0 * HOUR).unwrap().period_in_minutes, Some(1440));
        // A single run: at its time, at once if just missed, never if long past.
        assert_eq!(at("once", first, first - 1000.0), Some(Alarm { when: first, period_in_minutes: None }));
        assert_eq!(at("once", first, first + 5000.0).unwrap().when, first + 5000.0);
        assert_eq!(at("once", first, first + HOUR), None);
    }

    #[test]
    fn one_schedule_per_workflow_and_none_for_a_workflow_gone() {
        let stored = vec![schedule("daily", HOUR), json!({"workflow": "Deleted", "repeat": "once", "first_ms": 1.0})];
        let kept = set_schedule(&stored, &workflows(), &schedule("weekly", 2.0 * HOUR)).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].repeat, kept[0].first_ms), (Repeat::Weekly, 2.0 * HOUR));
        assert!(set_schedule(&stored, &workflows(), &json!({"workflow": "Deleted"})).is_err());
    }
}
