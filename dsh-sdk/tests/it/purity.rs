//! The purity helper: it passes a pure projection and catches what the
//! macros cannot see (hash order, the clock, a panic), naming the projection.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dsh_kit::prelude::*;
use dsh_kit::testing::{PurityCheck, assert_pure};

#[derive(Serialize, Deserialize, JsonSchema)]
struct Tally {
    counts: HashMap<String, u32>,
}

#[derive(Deserialize, JsonSchema)]
struct TallyArgs {
    /// The text to count the words of
    text: String,
}

fn tally(text: &str) -> Tally {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_owned()).or_insert(0) += 1;
    }
    Tally { counts }
}

const TEXT: &str = "a b c d e f g h i j k l a b c";

/// Renders by iterating a `HashMap`: its order changes with the hash seed.
struct Unsorted;

impl Tool for Unsorted {
    type Args = TallyArgs;
    type Output = Tally;
    const DEFINITION: ToolDef = ToolDef::builder("unsorted", "Count words.").build();

    async fn execute(args: TallyArgs, _exec: &Exec) -> Result<Tally, ToolError> {
        Ok(tally(&args.text))
    }

    fn render(_args: &TallyArgs, value: &Tally) -> Vec<ContentBlock> {
        let lines: Vec<String> = value
            .counts
            .iter()
            .map(|(word, n)| format!("{word}: {n}"))
            .collect();
        vec![ContentBlock::text(lines.join("\n"))]
    }
}

/// The same, sorted.
struct Sorted;

impl Tool for Sorted {
    type Args = TallyArgs;
    type Output = Tally;
    const DEFINITION: ToolDef = ToolDef::builder("sorted", "Count words.").build();

    async fn execute(args: TallyArgs, _exec: &Exec) -> Result<Tally, ToolError> {
        Ok(tally(&args.text))
    }

    fn render(_args: &TallyArgs, value: &Tally) -> Vec<ContentBlock> {
        let mut counts: Vec<_> = value.counts.iter().collect();
        counts.sort();
        let lines: Vec<String> = counts
            .iter()
            .map(|(word, n)| format!("{word}: {n}"))
            .collect();
        vec![ContentBlock::text(lines.join("\n"))]
    }

    fn present(args: &TallyArgs, value: &Tally) -> Option<Card> {
        let total: u32 = value.counts.values().sum();
        Some(Card::generic(
            "sorted",
            json!({ "text": args.text }),
            Some(json!(total)),
        ))
    }
}

/// Presents a card stamped with the time.
struct Stamped;

impl Tool for Stamped {
    type Args = TallyArgs;
    type Output = Tally;
    const DEFINITION: ToolDef = ToolDef::builder("stamped", "Count words.").build();

    async fn execute(args: TallyArgs, _exec: &Exec) -> Result<Tally, ToolError> {
        Ok(tally(&args.text))
    }

    fn present(_args: &TallyArgs, _value: &Tally) -> Option<Card> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        Some(Card::generic("stamped", json!({}), Some(json!(now))))
    }
}

/// Its running card panics.
struct Fragile;

impl Tool for Fragile {
    type Args = TallyArgs;
    type Output = Tally;
    const DEFINITION: ToolDef = ToolDef::builder("fragile", "Count words.").build();

    async fn execute(args: TallyArgs, _exec: &Exec) -> Result<Tally, ToolError> {
        Ok(tally(&args.text))
    }

    fn present_call(_args: &TallyArgs) -> Option<Card> {
        panic!("no card today")
    }
}

#[test]
fn a_pure_projection_passes() {
    assert_pure::<Sorted>(json!({ "text": TEXT }), &tally(TEXT));
}

#[test]
fn iterating_a_hash_map_is_caught() {
    let impure = PurityCheck::new()
        .clock_gap(Duration::ZERO)
        .check::<Unsorted>(json!({ "text": TEXT }), &tally(TEXT))
        .unwrap_err();
    assert_eq!(impure.projection(), Some("render"));
    let report = impure.to_string();
    assert!(
        report.starts_with("`unsorted`'s render is not pure: run "),
        "{report}"
    );
    assert!(report.contains("sort a `HashMap`'s entries"), "{report}");
}

#[test]
fn reading_the_clock_is_caught() {
    let impure = PurityCheck::new()
        .runs(3)
        .check::<Stamped>(json!({ "text": TEXT }), &tally(TEXT))
        .unwrap_err();
    assert_eq!(impure.projection(), Some("present"));
}

#[test]
fn a_panic_is_reported() {
    let impure = PurityCheck::new()
        .clock_gap(Duration::ZERO)
        .check::<Fragile>(json!({ "text": TEXT }), &tally(TEXT))
        .unwrap_err();
    assert_eq!(impure.projection(), None);
    assert_eq!(
        impure.to_string(),
        "a projection of `fragile` panicked: no card today"
    );
}

#[test]
fn arguments_that_do_not_fit_are_said_plainly() {
    let impure = PurityCheck::new()
        .clock_gap(Duration::ZERO)
        .check::<Sorted>(json!({ "txt": TEXT }), &tally(TEXT))
        .unwrap_err();
    assert_eq!(
        impure.to_string(),
        "cannot check `sorted`: the arguments do not deserialize: missing field `text`"
    );
}

#[test]
#[should_panic(expected = "`unsorted`'s render is not pure")]
fn assert_pure_panics_with_the_report() {
    assert_pure::<Unsorted>(json!({ "text": TEXT }), &tally(TEXT));
}
