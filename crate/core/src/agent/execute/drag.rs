//! The `drag` action: the element to drag and the one to drop on are both checked against the
//! map the model saw; the sensor drags with synthetic events, or aims and then trusted input drags
//! (where the user turned it on); the model is told what changed.

use super::consequences::{on_page, Act, Before};
use super::{report, Outcome};
use crate::actions::{label, Action};
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{trusted_input, Browser, DropOn, Highlight, OpOutcome, PageOp};
use crate::dom_map::{MapElement, PageMap};
use crate::llm::ChatModel;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    pub(super) async fn drag(
        &self,
        (index, to, dx, dy): (u32, Option<u32>, f64, f64),
        seen: Option<&PageMap>,
        latest: Option<PageMap>,
    ) -> Outcome {
        let name = "drag";
        let source = match self.verified_element(index, seen, latest.clone()).await? {
            Ok(element) => element,
            Err(problem) => return Ok(report(name, None, false, problem)),
        };
        let onto = match to {
            None => None,
            Some(to) => match self.verified_element(to, seen, latest).await? {
                Ok(element) if element.target.frame_id != source.target.frame_id => {
                    return Ok(report(
                        name,
                        Some(&source.describe()),
                        false,
                        format!(
                            "{} and {} are in different frames of the page; a drag stays within one: drop it on an element of its own frame.",
                            source.describe(),
                            element.describe()
                        ),
                    ))
                }
                Ok(element) => Some(element),
                Err(problem) => return Ok(report(name, Some(&source.describe()), false, problem)),
            },
        };
        let action = Action::Drag { index, to: onto.as_ref().map(|onto| onto.index), dx, dy };
        let page_url = seen.map(|map| map.url.as_str()).unwrap_or_default();
        // A drag acts where the element lives, as any act does; the pointer then crosses the
        // page, and a frame of another site on it sees it pass (or the drop).
        if let Some(refused) = self.guard_element(&action, &source, page_url).await? {
            return Ok(refused);
        }
        if let Some(refused) = self.guard_page_act(name, page_url, seen).await? {
            return Ok(refused);
        }
        // A drop may do what the place's words say (a "Delete" bin), and the page may send what
        // the drop changes: judged as a click is, by the words of both ends.
        let target = match &onto {
            Some(onto) => format!("{} onto {}", source.describe(), onto.describe()),
            None => source.describe(),
        };
        let said = [Some(label(&source)), onto.as_ref().map(label)].into_iter().flatten().collect::<Vec<_>>().join(" ");
        let fingerprints = [Some(source.fingerprint), onto.as_ref().map(|onto| onto.fingerprint)];
        let key = format!("drag|{fingerprints:?}|{dx}|{dy}");
        let act =
            Act { action: &action, target, label: said, url: page_url, lands: page_url, key, hold: on_page(page_url) };
        let before = match &onto {
            Some(onto) => self.consequences_before(&act, onto, seen).await?,
            None => Before::Unseen,
        };
        self.focus_frame.set(source.target.frame_id);
        self.focus_moved.set(false);
        self.focus_frame_url.replace(source.frame_url.clone());
        let mut done = self.holding_changes(&act, before, || self.drag_element(&source, onto.as_ref(), dx, dy)).await?;
        done.report.element = Some(Highlight { target: source.target.clone(), index: source.index });
        Ok(done)
    }

    async fn drag_element(&self, source: &MapElement, onto: Option<&MapElement>, dx: f64, dy: f64) -> Outcome {
        let target = source.describe();
        let op = PageOp::Drag {
            target: source.target.clone(),
            tag: source.tag.clone(),
            to: onto.map(|element| DropOn { id: element.target.id, tag: element.tag.clone() }),
            dx,
            dy,
            aim_only: self.trusted_here(source),
        };
        let mut outcome = self.perform(&op).await?;
        if outcome.ok && self.trusted_here(source) {
            outcome = self.trusted_drag(source, outcome).await?;
        }
        let whither = match (onto, dx == 0.0 && dy == 0.0) {
            (Some(element), true) => format!("onto {}", element.describe()),
            (Some(element), false) => format!("to {dx}, {dy} px from the centre of {}", element.describe()),
            (None, _) => format!("by {dx}, {dy} px"),
        };
        if !outcome.ok {
            let text = format!("Could not drag {target} {whither}: {}.", outcome.message);
            return Ok(report("drag", Some(&target), false, text));
        }
        let what = outcome.dragged.as_ref().map(|dragged| dragged.sentence()).unwrap_or_default();
        self.after_op("drag", Some(&target), outcome, format!("Dragged {target} {whither}. {what}"), "").await
    }

    /// The drag the sensor aimed (`aimed` holds its two points), through the debugger, then what
    /// it changed as the sensor sees it.
    async fn trusted_drag(&self, source: &MapElement, aimed: OpOutcome) -> Result<OpOutcome, StepError> {
        let Some(points) = aimed.dragged.as_ref() else { return Ok(aimed) };
        for (i, part) in trusted_input::drag_between(points.from, points.to).iter().enumerate() {
            if i > 0 {
                self.between_pieces().await?;
            }
            let sent = self.input(part).await?;
            if !sent.ok {
                return Ok(sent);
            }
        }
        self.perform(&PageOp::Dragged { target: source.target.clone(), tag: source.tag.clone() }).await
    }
}
