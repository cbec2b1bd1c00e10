use super::*;
use crate::dom_map::tests::map_element;

fn element(tag: &str, attrs: &[(&str, &str)]) -> MapElement {
    map_element(3, tag, "", attrs)
}

fn state(value: f64, min: Option<f64>, max: Option<f64>, step: Option<f64>) -> NumberState {
    NumberState { value: Some(value), min, max, step, text: String::new() }
}

#[test]
fn sliders_range_inputs_and_spinners_are_told_apart_from_other_fields() {
    assert_eq!(NumberControl::of(&element("input", &[("type", "range")])), Some(NumberControl::Range));
    assert_eq!(NumberControl::of(&element("input", &[("type", "number")])), Some(NumberControl::Field));
    // jQuery UI's spinner: a text input with the spinbutton role.
    assert_eq!(NumberControl::of(&element("input", &[("role", "spinbutton")])), Some(NumberControl::Field));
    // noUiSlider's, Ant Design's thumbs.
    assert_eq!(NumberControl::of(&element("div", &[("role", "slider")])), Some(NumberControl::Keyed));
    assert_eq!(NumberControl::of(&element("div", &[("role", "spinbutton")])), Some(NumberControl::Keyed));
    assert_eq!(NumberControl::of(&element("input", &[("type", "text")])), None);
    assert_eq!(NumberControl::of(&element("button", &[])), None);
}

#[test]
fn a_number_is_read_as_people_write_it() {
    assert_eq!(number_in(" 42 "), Some(42.0));
    assert_eq!(number_in("-3.5"), Some(-3.5));
    assert_eq!(number_in("1,000"), Some(1000.0));
    assert_eq!(number_in("1,000,000.5"), Some(1_000_000.5));
    assert_eq!(number_in("1,5"), Some(1.5));
    assert_eq!(number_in("four"), None);
    assert_eq!(number_in(""), None);
    assert_eq!(number_in("inf"), None);
    assert_eq!(shown(0.1 + 0.2), "0.3");
    assert_eq!(shown(4.0), "4");
    assert_eq!(shown(-0.0), "0");
}

#[test]
fn stepping_learns_the_step_with_one_press_then_presses_the_rest_at_once() {
    let unknown = Learned::default();
    assert_eq!(next_press(0.0, 4.0, unknown), Some(("ArrowUp", 1)));
    assert_eq!(next_press(10.0, 4.0, unknown), Some(("ArrowDown", 1)));
    let mut learned = Learned::default();
    learned.note("ArrowUp", 1, 0.0, 1.0);
    assert_eq!(learned.arrow, Some(1.0));
    assert_eq!(next_press(1.0, 4.0, learned), Some(("ArrowUp", 3)));
    // Learned going down, used going up and down alike.
    let mut down = Learned::default();
    down.note("ArrowDown", 1, 50.0, 45.0);
    assert_eq!(down.arrow, Some(5.0));
    assert_eq!(next_press(45.0, 30.0, down), Some(("ArrowDown", 3)));
    // Reached, or as near as the step allows: nothing more.
    assert_eq!(next_press(4.0, 4.0, learned), None);
    assert_eq!(next_press(45.0, 47.0, down), None);
    assert_eq!(next_press(45.0, 48.0, down), Some(("ArrowUp", 1)));
}

#[test]
fn a_long_way_goes_by_pages_then_arrows() {
    let mut learned = Learned::default();
    learned.note("ArrowUp", 1, 0.0, 1.0);
    // 700 steps away: a page key is tried first, to learn how far it goes.
    assert_eq!(next_press(1.0, 701.0, learned), Some(("PageUp", 1)));
    learned.note("PageUp", 1, 1.0, 101.0);
    assert_eq!(next_press(101.0, 701.0, learned), Some(("PageUp", 6)));
    assert_eq!(next_press(701.0, 703.0, learned), Some(("ArrowUp", 2)));
    // A page key that does not move it (jQuery UI's spinner pages by 10 steps; others not at all):
    // arrows, at most so many at a time.
    let mut flat = Learned::default();
    flat.note("ArrowUp", 1, 0.0, 1.0);
    flat.note("PageUp", 3, 1.0, 1.0);
    assert_eq!(next_press(1.0, 1001.0, flat), Some(("ArrowUp", MAX_PRESSES)));
}

#[test]
fn keys_that_do_not_move_the_control_or_move_it_the_wrong_way_stop_the_stepping() {
    let mut stuck = Learned::default();
    stuck.note("ArrowUp", 1, 3.0, 3.0);
    assert_eq!(next_press(3.0, 7.0, stuck), None);
    let mut backwards = Learned::default();
    backwards.note("ArrowUp", 1, 3.0, 2.0);
    assert_eq!(next_press(2.0, 7.0, backwards), None);
    // A first press clipped at a bound is not taken for the step once a full one is seen.
    let mut clipped = Learned::default();
    clipped.note("ArrowDown", 1, 0.5, 0.0);
    clipped.note("ArrowUp", 2, 0.0, 2.0);
    assert_eq!(clipped.arrow, Some(1.0));
}

#[test]
fn the_outcome_says_the_value_reached_and_why_when_it_is_not_the_one_asked() {
    let target = "<div> \"Volume\" [3]";
    assert_eq!(
        number_outcome(target, 40.0, &state(40.0, Some(0.0), Some(100.0), None), Some(1.0)),
        (true, format!("Set {target} to 40."))
    );
    let words = NumberState { text: "40 %".into(), ..state(40.0, None, None, None) };
    assert_eq!(number_outcome(target, 40.0, &words, None), (true, format!("Set {target} to 40 (it shows \"40 %\").")));
    let digits = NumberState { text: "40.00".into(), ..state(40.0, None, None, None) };
    assert_eq!(number_outcome(target, 40.0, &digits, None), (true, format!("Set {target} to 40.")));
    // Beyond a bound: the bound, with the range told.
    let (ok, said) = number_outcome(target, 150.0, &state(100.0, Some(0.0), Some(100.0), Some(5.0)), None);
    assert!(ok);
    assert_eq!(
        said,
        format!("{target} cannot hold 150 (from 0 to 100, in steps of 5); it is now at 100, the nearest it takes.")
    );
    // Between two steps: the nearest, with the step the keys showed.
    let (ok, said) = number_outcome(target, 42.0, &state(40.0, Some(0.0), Some(100.0), None), Some(5.0));
    assert!(ok);
    assert!(said.contains("in steps of 5") && said.contains("now at 40"), "{said}");
    // Stuck short of it: a failure that says where it is and what else to try.
    let (ok, said) = number_outcome(target, 42.0, &state(10.0, Some(0.0), Some(100.0), None), Some(1.0));
    assert!(!ok);
    assert!(said.starts_with(&format!("{target} is at 10, not 42 (from 0 to 100, in steps of 1)")), "{said}");
    let unknown = NumberState::default();
    assert!(!number_outcome(target, 42.0, &unknown, None).0);
}

#[test]
fn a_multiple_select_says_what_was_added_or_taken_out_and_all_that_is_chosen() {
    let target = "<select> \"Pets\" [4]";
    let both = vec!["Miguelita".to_string(), "Lolita".to_string()];
    assert_eq!(
        multiple_sentence(target, "Lolita", &both),
        format!("Added \"Lolita\" to the choice in {target}; now selected: \"Miguelita\", \"Lolita\".")
    );
    let said = multiple_sentence(target, "Miguelita", &both[1..]);
    assert!(said.starts_with(&format!("Took \"Miguelita\" out of the choice in {target}")), "{said}");
    assert!(said.ends_with("now selected: \"Lolita\"."), "{said}");
    assert!(multiple_sentence(target, "Lolita", &[]).ends_with("now nothing is selected."));
}

#[test]
fn a_chosen_option_is_taken_out_with_the_button_named_after_it() {
    let remove = element("div", &[("role", "button"), ("aria-label", "Remove Caramel sauce")]);
    assert!(is_remover_of(&remove, " caramel SAUCE "));
    assert!(!is_remover_of(&remove, "Caramel"));
    assert!(!is_remover_of(&element("div", &[("role", "button"), ("aria-label", "Caramel sauce")]), "Caramel sauce"));
}
