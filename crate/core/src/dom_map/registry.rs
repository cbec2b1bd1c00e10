//! Stable element indices across steps: an element keeps its index for as long as it lives in its
//! document, whatever changes around it; indices are never reused within a task.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

#[derive(Debug, Default, Clone)]
pub struct ElementRegistry {
    next: u32,
    /// Per document, each element id's index.
    by_doc: HashMap<String, HashMap<u32, u32>>,
    /// Indices shown by the previous map, to mark what is new; `None` before the first map.
    previous: Option<HashSet<u32>>,
    current: HashSet<u32>,
}

impl ElementRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of the element `id` of document `doc`, assigning the next free one if new.
    pub fn index_of(&mut self, doc: &str, id: u32) -> u32 {
        if let Some(&index) = self.by_doc.get(doc).and_then(|ids| ids.get(&id)) {
            return index;
        }
        self.next += 1;
        self.by_doc.entry(doc.to_string()).or_default().insert(id, self.next);
        self.next
    }

    /// Whether an element appeared since the previous map (never on the first map).
    pub fn is_new(&self, index: u32) -> bool {
        self.previous.as_ref().is_some_and(|previous| !previous.contains(&index))
    }

    pub fn mark_shown(&mut self, index: u32) {
        self.current.insert(index);
    }

    /// Ends a map: forgets documents no longer present and remembers what was shown.
    pub fn finish_map(&mut self, live_docs: &HashSet<&str>) {
        self.by_doc.retain(|doc, _| live_docs.contains(doc.as_str()));
        self.previous = Some(std::mem::take(&mut self.current));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_indices_per_element_and_never_reuses_them() {
        let mut registry = ElementRegistry::new();
        assert_eq!(registry.index_of("d1", 7), 1);
        assert_eq!(registry.index_of("d1", 9), 2);
        assert_eq!(registry.index_of("d1", 7), 1);
        // A reloaded document has new element ids and gets new indices, even for the same ids.
        registry.finish_map(&HashSet::from_iter(["d2"]));
        assert_eq!(registry.index_of("d2", 7), 3);
    }

    #[test]
    fn marks_elements_new_since_the_previous_map_only() {
        let mut registry = ElementRegistry::new();
        let a = registry.index_of("d", 1);
        assert!(!registry.is_new(a), "nothing is new on the first map");
        registry.mark_shown(a);
        registry.finish_map(&HashSet::from_iter(["d"]));
        let b = registry.index_of("d", 2);
        assert!(!registry.is_new(a));
        assert!(registry.is_new(b));
    }
}
