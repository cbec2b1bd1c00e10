//! Schedules: a stored workflow run by itself, once or again every hour, day or week, from a first
//! time the user picks. The extension keeps one alarm per schedule (`chrome.alarms`), each set for
//! the next run only and set again after it fires; this module checks schedules and says when the
//! next run is. Days and weeks are counted on the local clock, which the browser knows
//! (`LocalZone`), so a daily 08:00 run stays at 08:00 across a daylight-saving change.

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

/// The local time zone, as the browser knows it (the core keeps no time-zone data).
pub trait LocalZone {
    /// How far local clocks are ahead of UTC at the instant `utc_ms`, in milliseconds.
    fn offset_ms(&self, utc_ms: f64) -> f64;
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
    /// The first run, in milliseconds since the epoch. Daily and weekly runs keep its local time
    /// of day (and day of the week); hourly runs come every 60 minutes after it.
    pub first_ms: f64,
}

/// When a schedule's next run is due, as `chrome.alarms.create` takes it (a single alarm: a
/// repeating one would keep a fixed period and drift off the local clock).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alarm {
    pub when: f64,
}

/// A single run missed by at most this much (a browser asleep at the time) still runs.
const LATE_MS: f64 = 60_000.0;
const MINUTE_MS: f64 = 60_000.0;
const HOUR_MS: f64 = 60.0 * MINUTE_MS;
const DAY_MS: f64 = 24.0 * HOUR_MS;

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

    /// The alarm for the next run after `now_ms` on the clocks of `zone`, or none when a single
    /// run is long past.
    pub fn alarm(&self, now_ms: f64, zone: &impl LocalZone) -> Option<Alarm> {
        let when = match self.repeat {
            // A time the caller got wrong has no next run (and would never end the search).
            _ if !now_ms.is_finite() => return None,
            _ if self.first_ms > now_ms => self.first_ms,
            Repeat::Once if now_ms - self.first_ms <= LATE_MS => now_ms,
            Repeat::Once => return None,
            // Every 60 minutes of real time: an hourly run neither skips the hour repeated in
            // autumn nor runs twice in spring, and keeps its minutes past the hour wherever the
            // clocks change by whole hours.
            Repeat::Hourly => self.first_ms + ((now_ms - self.first_ms) / HOUR_MS).floor() * HOUR_MS + HOUR_MS,
            Repeat::Daily => self.next_local_run(1.0, now_ms, zone),
            Repeat::Weekly => self.next_local_run(7.0, now_ms, zone),
        };
        Some(Alarm { when })
    }

    /// The first run after `now_ms` (itself after the first run) on a local day a whole number
    /// of `days` after the first run's, at the first run's local time of day.
    fn next_local_run(&self, days: f64, now_ms: f64, zone: &impl LocalZone) -> f64 {
        let first_local = self.first_ms + zone.offset_ms(self.first_ms);
        let first_day = (first_local / DAY_MS).floor();
        let time_of_day = first_local - first_day * DAY_MS;
        let today = ((now_ms + zone.offset_ms(now_ms)) / DAY_MS).floor();
        // A local time is less than a day from its instant, so no run before yesterday's is due.
        let mut periods = ((today - 1.0 - first_day) / days).ceil().max(1.0);
        loop {
            let run = instant_at(zone, (first_day + periods * days) * DAY_MS + time_of_day);
            if run > now_ms {
                return run;
            }
            periods += 1.0;
        }
    }
}

/// The instant at which the clocks of `zone` read `local_ms` (milliseconds since the epoch on a
/// clock without time zone). A time read twice, in the hour repeated when clocks go back, is
/// its first reading, so a run there happens once; a time skipped when clocks go forward is the
/// instant they skip to (02:30, when 02:00 becomes 03:00, is 03:00): the run comes at the first
/// minute that exists after its time.
fn instant_at(zone: &impl LocalZone, local_ms: f64) -> f64 {
    // Clocks change at most once in two days: the offsets a day either side are the only ones.
    let before = zone.offset_ms(local_ms - DAY_MS);
    let after = zone.offset_ms(local_ms + DAY_MS);
    // The larger offset reads `local_ms` at the earlier instant.
    for offset in [before.max(after), before.min(after)] {
        if zone.offset_ms(local_ms - offset) == offset {
            return local_ms - offset;
        }
    }
    // Skipped: the clocks jumped from `before` to `after` between these two instants; find the
    // minute of the jump.
    let (mut read_before, mut read_after) = (local_ms - after, local_ms - before);
    while read_after - read_before > MINUTE_MS {
        let middle = read_before + ((read_after - read_before) / MINUTE_MS / 2.0).floor().max(1.0) * MINUTE_MS;
        if zone.offset_ms(middle) == before {
            read_before = middle;
        } else {
            read_after = middle;
        }
    }
    read_after
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
    use chrono::{DateTime, NaiveDateTime, Offset, TimeZone};
    use chrono_tz::America::New_York;
    use chrono_tz::Europe::Berlin;
    use chrono_tz::{Tz, UTC};
    use serde_json::json;

    const HOUR: f64 = 3_600_000.0;

    /// The time-zone database stands in for the browser's.
    impl LocalZone for Tz {
        fn offset_ms(&self, utc_ms: f64) -> f64 {
            let at = DateTime::from_timestamp_millis(utc_ms as i64).unwrap().naive_utc();
            f64::from(self.offset_from_utc_datetime(&at).fix().local_minus_utc()) * 1000.0
        }
    }

    /// The instant `zone`'s clocks read `local` ("2026-03-27 08:00"), the first of two.
    fn instant(zone: Tz, local: &str) -> f64 {
        let local = NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M").unwrap();
        zone.from_local_datetime(&local).earliest().unwrap().timestamp_millis() as f64
    }

    /// What `zone`'s clocks read at `utc_ms`, weekday and offset with it.
    fn clock(zone: Tz, utc_ms: f64) -> String {
        zone.timestamp_millis_opt(utc_ms as i64).unwrap().format("%a %Y-%m-%d %H:%M %:z").to_string()
    }

    /// The `count` runs after the first, at `first` in `zone`, each alarm set as the one before
    /// it fires.
    fn runs(zone: Tz, repeat: &str, first: &str, count: usize) -> Vec<String> {
        let schedule = Schedule::from_json(&schedule(repeat, instant(zone, first)), &workflows()).unwrap();
        let mut now = schedule.first_ms;
        (0..count)
            .map(|_| {
                now = schedule.alarm(now, &zone).unwrap().when;
                clock(zone, now)
            })
            .collect()
    }

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
            Schedule::from_json(&schedule(repeat, first), &workflows())
                .unwrap()
                .alarm(now, &UTC)
                .map(|alarm| alarm.when)
        };
        let first = 100.0 * HOUR + 0.5 * HOUR;
        // Before the first run: the first run.
        assert_eq!(at("weekly", first, 90.0 * HOUR), Some(first));
        // Later: the next run after now, not now itself (an alarm that has just fired).
        assert_eq!(at("hourly", first, first + 2.2 * HOUR), Some(first + 3.0 * HOUR));
        assert_eq!(at("hourly", first, first + 2.0 * HOUR), Some(first + 3.0 * HOUR));
        assert_eq!(at("daily", first, first + 30.0 * HOUR), Some(first + 48.0 * HOUR));
        assert_eq!(at("daily", first, first), Some(first + 24.0 * HOUR));
        assert_eq!(at("weekly", first, first + 1000.0 * HOUR), Some(first + 1008.0 * HOUR));
        // A single run: at its time, at once if just missed, never if long past.
        assert_eq!(at("once", first, first - 1000.0), Some(first));
        assert_eq!(at("once", first, first + 5000.0), Some(first + 5000.0));
        assert_eq!(at("once", first, first + HOUR), None);
        assert_eq!(at("daily", first, f64::NAN), None);
    }

    #[test]
    fn a_daily_run_keeps_its_local_time_when_the_clocks_change() {
        let spring = ["Sat 2026-03-28 08:00 +01:00", "Sun 2026-03-29 08:00 +02:00", "Mon 2026-03-30 08:00 +02:00"];
        assert_eq!(runs(Berlin, "daily", "2026-03-27 08:00", 3), spring);
        let autumn = ["Sun 2026-10-25 08:00 +01:00", "Mon 2026-10-26 08:00 +01:00"];
        assert_eq!(runs(Berlin, "daily", "2026-10-24 08:00", 2), autumn);
        let spring = ["Sun 2026-03-08 08:00 -04:00", "Mon 2026-03-09 08:00 -04:00"];
        assert_eq!(runs(New_York, "daily", "2026-03-07 08:00", 2), spring);
        assert_eq!(runs(New_York, "daily", "2026-10-31 08:00", 1), ["Sun 2026-11-01 08:00 -05:00"]);
    }

    #[test]
    fn a_weekly_run_keeps_its_weekday_and_local_time() {
        let spring = ["Tue 2026-03-10 09:30 -04:00", "Tue 2026-03-17 09:30 -04:00"];
        assert_eq!(runs(New_York, "weekly", "2026-03-03 09:30", 2), spring);
        assert_eq!(runs(New_York, "weekly", "2026-10-27 09:30", 1), ["Tue 2026-11-03 09:30 -05:00"]);
        assert_eq!(runs(Berlin, "weekly", "2026-03-24 07:00", 1), ["Tue 2026-03-31 07:00 +02:00"]);
        assert_eq!(runs(Berlin, "weekly", "2026-10-20 07:00", 1), ["Tue 2026-10-27 07:00 +01:00"]);
        // Set in winter, its alarm set again half a year later (the worker started then).
        let january = Schedule::from_json(&schedule("weekly", instant(New_York, "2026-01-06 09:30")), &workflows());
        let july = january.unwrap().alarm(instant(New_York, "2026-07-01 12:00"), &New_York).unwrap();
        assert_eq!(clock(New_York, july.when), "Tue 2026-07-07 09:30 -04:00");
    }

    #[test]
    fn a_run_in_the_skipped_hour_comes_at_the_first_minute_after_it() {
        // 02:00 becomes 03:00: a 02:30 run comes at 03:00 that day, and at 02:30 after it.
        let berlin = ["Sat 2026-03-28 02:30 +01:00", "Sun 2026-03-29 03:00 +02:00", "Mon 2026-03-30 02:30 +02:00"];
        assert_eq!(runs(Berlin, "daily", "2026-03-27 02:30", 3), berlin);
        let new_york = ["Sun 2026-03-08 03:00 -04:00", "Mon 2026-03-09 02:30 -04:00"];
        assert_eq!(runs(New_York, "daily", "2026-03-07 02:30", 2), new_york);
        let weekly = ["Sun 2026-03-29 03:00 +02:00", "Sun 2026-04-05 02:15 +02:00"];
        assert_eq!(runs(Berlin, "weekly", "2026-03-22 02:15", 2), weekly);
    }

    #[test]
    fn a_run_in_the_repeated_hour_happens_once() {
        // 03:00 becomes 02:00 again: a 02:30 run comes at the first 02:30, then the next day.
        let berlin = ["Sun 2026-10-25 02:30 +02:00", "Mon 2026-10-26 02:30 +01:00"];
        assert_eq!(runs(Berlin, "daily", "2026-10-24 02:30", 2), berlin);
        let new_york = ["Sun 2026-11-01 01:30 -04:00", "Mon 2026-11-02 01:30 -05:00"];
        assert_eq!(runs(New_York, "daily", "2026-10-31 01:30", 2), new_york);
        // An alarm set again between the two readings of 02:30 (the worker started then).
        let daily = Schedule::from_json(&schedule("daily", instant(Berlin, "2026-10-24 02:30")), &workflows()).unwrap();
        let second_two_o_clock = instant(Berlin, "2026-10-25 02:00") + HOUR + 10.0 * 60_000.0;
        assert_eq!(clock(Berlin, second_two_o_clock), "Sun 2026-10-25 02:10 +01:00");
        assert_eq!(
            clock(Berlin, daily.alarm(second_two_o_clock, &Berlin).unwrap().when),
            "Mon 2026-10-26 02:30 +01:00"
        );
    }

    #[test]
    fn an_hourly_run_comes_every_sixty_minutes_through_the_clock_changes() {
        let spring = ["Sun 2026-03-29 01:15 +01:00", "Sun 2026-03-29 03:15 +02:00", "Sun 2026-03-29 04:15 +02:00"];
        assert_eq!(runs(Berlin, "hourly", "2026-03-29 00:15", 3), spring);
        let autumn = ["Sun 2026-10-25 02:15 +02:00", "Sun 2026-10-25 02:15 +01:00", "Sun 2026-10-25 03:15 +01:00"];
        assert_eq!(runs(Berlin, "hourly", "2026-10-25 01:15", 3), autumn);
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
