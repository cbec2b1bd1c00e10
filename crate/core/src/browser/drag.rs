//! Drag and drop as the sensor performs and reports it: where to drop, and what the drag changed.

use serde::{Deserialize, Serialize};

/// The element a drag drops onto, in the same document as the dragged one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DropOn {
    /// The sensor's id within the document.
    pub id: u32,
    pub tag: String,
}

/// What a drag did, as the sensor saw the page before and after it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DragReport {
    /// Where the pointer took the element and where it let go, in the frame's viewport.
    pub from: [f64; 2],
    pub to: [f64; 2],
    /// Whether anything on the page changed during the drag.
    pub changed: bool,
    /// How far the dragged element's box moved; `None` when it left the page (a library that
    /// renders its list again).
    pub moved: Option<[f64; 2]>,
    /// Its place among its siblings before and after (1-based position, count).
    pub place_before: Option<[u32; 2]>,
    pub place_after: Option<[u32; 2]>,
    /// The list it is now in, described, when it moved into another one.
    pub new_list: Option<String>,
    /// Its value (a slider's `aria-valuetext`, `aria-valuenow` or `value`) before and after.
    pub value_before: Option<String>,
    pub value_after: Option<String>,
    /// Whether a drop target accepted an HTML5 drop, when the drag was one.
    pub dropped: Option<bool>,
}

impl DragReport {
    /// What changed, in a sentence for the model (empty when the page did not change).
    pub fn sentence(&self) -> String {
        if !self.changed {
            return "Nothing on the page changed: the element may not be draggable (look for a handle or another element to drag), or the drop place did not take it.".into();
        }
        let mut said = Vec::new();
        if let (Some(before), Some(after)) = (&self.value_before, &self.value_after) {
            if before != after {
                said.push(format!("its value went from {before} to {after}"));
            } else {
                said.push(format!("its value is still {after}"));
            }
        }
        match (&self.new_list, self.place_before, self.place_after) {
            (Some(list), _, Some([at, of])) => said.push(format!("it is now in {list}, {} of {of}", ordinal(at))),
            (None, Some([was, _]), Some([at, of])) if was != at => {
                said.push(format!("it is now {} of {of} in its list (was {})", ordinal(at), ordinal(was)))
            }
            (None, Some(_), Some([at, of])) if said.is_empty() && of > 1 => {
                said.push(format!("it is still {} of {of} in its list", ordinal(at)))
            }
            _ => {}
        }
        if said.is_empty() {
            match self.moved {
                Some([x, y]) if x.abs() >= 1.0 || y.abs() >= 1.0 => said.push(format!("it moved {}", offset(x, y))),
                Some(_) => said.push("it is where it was, but the page changed".into()),
                None => said.push("the page replaced it (look at the new page map for the result)".into()),
            }
        }
        if self.dropped == Some(false) {
            said.push("no drop place under the pointer accepted the drop".into());
        }
        let mut text = said.join("; ");
        if let Some(first) = text.get(..1) {
            text.replace_range(..1, &first.to_uppercase());
        }
        format!("{text}.")
    }
}

/// "1st", "2nd", "3rd", "4th", "11th", "22nd"...
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "120 px right and 30 px up".
fn offset(x: f64, y: f64) -> String {
    let part = |d: f64, plus: &str, minus: &str| {
        (d.abs() >= 1.0).then(|| format!("{} px {}", d.abs().round(), if d > 0.0 { plus } else { minus }))
    };
    [part(x, "right", "left"), part(y, "down", "up")].into_iter().flatten().collect::<Vec<_>>().join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed() -> DragReport {
        DragReport { changed: true, ..DragReport::default() }
    }

    #[test]
    fn a_drag_says_where_the_element_went() {
        let reordered = DragReport { place_before: Some([1, 4]), place_after: Some([3, 4]), ..changed() };
        assert_eq!(reordered.sentence(), "It is now 3rd of 4 in its list (was 1st).");
        let moved = DragReport {
            new_list: Some("<ul> \"Done\"".into()),
            place_before: Some([2, 3]),
            place_after: Some([1, 2]),
            ..changed()
        };
        assert_eq!(moved.sentence(), "It is now in <ul> \"Done\", 1st of 2.");
        let slid = DragReport { value_before: Some("20".into()), value_after: Some("45".into()), ..changed() };
        assert_eq!(slid.sentence(), "Its value went from 20 to 45.");
        let offset = DragReport { moved: Some([120.4, -30.0]), ..changed() };
        assert_eq!(offset.sentence(), "It moved 120 px right and 30 px up.");
        let gone = DragReport { dropped: Some(false), ..changed() };
        assert_eq!(
            gone.sentence(),
            "The page replaced it (look at the new page map for the result); no drop place under the pointer accepted the drop."
        );
        assert!(DragReport::default().sentence().starts_with("Nothing on the page changed"));
        assert_eq!([ordinal(11), ordinal(22), ordinal(103)], ["11th", "22nd", "103rd"]);
    }
}
