//! Parameter-slot evidence for the rerank: which of a tool's parameters the
//! query holds values for.
//!
//! Tools that do the same thing are often told apart only by what they take:
//! a forecast that needs a date against one for right now, a converter whose
//! unit is one of a few allowed values. A request carries the values it will
//! be called with, so a tool whose required parameters the query cannot fill
//! (a number, a date, one of an enumeration's values that it does not hold)
//! fits it less well than a twin it can, and a tool one of whose allowed
//! values the query names fits it better.

use serde_json::Value;

use super::ids::TermId;
use super::tuning::{MAX_CHOICE_BYTES, MAX_CHOICES, MAX_DATED_BYTES, MAX_REQUIRED, MAX_SLOTS};
use crate::search::text;

/// A tool's top-level parameters as a query might fill them.
#[derive(Default)]
pub(super) struct Slots {
    /// How many parameters are required.
    required: u8,
    /// How many required ones take a number (or a list of numbers).
    numbers: u8,
    /// How many required ones take a date or a time.
    dates: u8,
    /// Each enumerated parameter's allowed values as terms, as (parameter,
    /// whether it is required, term), sorted.
    choices: Box<[(u8, bool, TermId)]>,
}

/// What a query offers to fill parameters with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Values {
    /// How many numbers it holds.
    pub(super) numbers: usize,
    /// Whether it holds something that looks like a date or a time.
    pub(super) dated: bool,
}

impl Values {
    /// What `query` offers, looking at no more than its first
    /// [`MAX_DATED_BYTES`] bytes for a date and counting at most `max` numbers.
    ///
    /// A number that is part of a date or a time (`2024-05-01`, `16:00`,
    /// `4pm`, "the 25th of April 2023") is the date's, not a number a
    /// parameter could take: a forecast for "April 11th" is not one for
    /// eleven days.
    pub(super) fn of(query: &str, max: usize) -> Values {
        let mut numbers = 0;
        text::words(query, |word| {
            numbers += usize::from(word.chars().all(char::is_numeric));
        });
        let mut end = query.len().min(MAX_DATED_BYTES);
        while !query.is_char_boundary(end) {
            end -= 1;
        }
        let dates = Dates::of(&query[..end]);
        Values {
            numbers: numbers.saturating_sub(dates.numbers).min(max),
            dated: dates.dated,
        }
    }
}

impl Slots {
    /// The slots of `schema`'s top-level properties; `terms` calls back with
    /// the terms of an allowed value that the tool holds.
    pub(super) fn of(schema: &Value, mut terms: impl FnMut(&str, &mut dyn FnMut(TermId))) -> Slots {
        let mut slots = Slots::default();
        let Some(Value::Object(properties)) = schema.get("properties") else {
            return slots;
        };
        let required = |name: &str| match schema.get("required") {
            Some(Value::Array(names)) => names.iter().take(MAX_REQUIRED).any(|held| held == name),
            _ => false,
        };
        let mut choices = Vec::new();
        for (at, (name, property)) in properties.iter().take(MAX_SLOTS).enumerate() {
            let needed = required(name);
            if needed {
                slots.required += 1;
                if takes_numbers(property) {
                    slots.numbers += 1;
                } else if takes_dates(name, property) {
                    slots.dates += 1;
                }
            }
            if let Some(Value::Array(values)) = property.get("enum") {
                for value in values.iter().take(MAX_CHOICES) {
                    if let Value::String(value) = value
                        && value.len() <= MAX_CHOICE_BYTES
                    {
                        terms(value, &mut |term| choices.push((at as u8, needed, term)));
                    }
                }
            }
        }
        choices.sort_unstable();
        choices.dedup();
        slots.choices = choices.into_boxed_slice();
        slots
    }

    /// How well a query offering `values` and holding the terms `own`
    /// (sorted by term) fills these slots: the share of the required
    /// parameters it leaves without a value (a number or a date it lacks, an
    /// enumeration none of whose values it names), and whether it names an
    /// allowed value of any parameter.
    pub(super) fn fill(&self, values: Values, own: &[(TermId, f32)]) -> (f32, bool) {
        let holds = |term: TermId| own.binary_search_by_key(&term, |&(term, _)| term).is_ok();
        let mut missing = usize::from(self.numbers).saturating_sub(values.numbers);
        if !values.dated {
            missing += usize::from(self.dates);
        }
        let mut named = false;
        for parameter in self.choices.chunk_by(|a, b| a.0 == b.0) {
            let found = parameter.iter().any(|&(_, _, term)| holds(term));
            named |= found;
            missing += usize::from(parameter[0].1 && !found);
        }
        let unfilled = if self.required == 0 {
            0.0
        } else {
            missing.min(usize::from(self.required)) as f32 / f32::from(self.required)
        };
        (unfilled, named)
    }
}

/// Whether a parameter takes a number, or a list of numbers.
fn takes_numbers(property: &Value) -> bool {
    let numeric = |kind: &Value| match kind {
        Value::String(kind) => kind == "number" || kind == "integer",
        Value::Array(kinds) => kinds
            .iter()
            .any(|kind| kind == "number" || kind == "integer"),
        _ => false,
    };
    property.get("type").is_some_and(numeric)
        || property
            .get("items")
            .and_then(|items| items.get("type"))
            .is_some_and(numeric)
}

/// Whether a parameter takes a date or a time: a string of a date or time
/// format, or one whose name holds the word "date" or "time".
fn takes_dates(name: &str, property: &Value) -> bool {
    if let Some(Value::String(format)) = property.get("format") {
        return matches!(format.as_str(), "date" | "date-time" | "time");
    }
    let mut dated = false;
    text::words(name, |word| {
        dated |= word.eq_ignore_ascii_case("date") || word.eq_ignore_ascii_case("time");
    });
    dated
}

/// Where `bytes` holds three numbers joined by dots (`2023.10.02`, `1.3.2024`):
/// a date, where two would be a decimal.
fn dotted_dates(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_digit() || (at > 0 && bytes[at - 1].is_ascii_alphanumeric()) {
            at += 1;
            continue;
        }
        // A run of numbers each followed by one dot and a digit.
        let (start, mut numbers) = (at, 1);
        loop {
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
                at += 1;
                numbers += 1;
            } else {
                break;
            }
        }
        if numbers == 3 && !bytes.get(at).is_some_and(u8::is_ascii_alphanumeric) {
            runs.push(start..at);
        }
    }
    runs
}

/// The dates and times found in a text: a capitalised month name (so
/// "may" and "march" as verbs are not read as months), or one next to a day
/// or a year ("5th of march"), digits joined by `-`, `/` or `:`
/// (`2024-03-12`, `12/03`, `16:00`), three numbers joined by dots
/// (`2023.10.02`), or digits followed by `am` or `pm`, with or without a
/// space.
struct Dates {
    /// Whether it holds one.
    dated: bool,
    /// How many of its numbers (as [`text::words`] splits them) belong to one.
    numbers: usize,
}

impl Dates {
    fn of(text: &str) -> Dates {
        const MONTHS: [&str; 12] = [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ];
        /// Words that may stand between a month and its day or year.
        const BETWEEN: [&str; 6] = ["st", "nd", "rd", "th", "of", "the"];
        let bytes = text.as_bytes();
        let mut words: Vec<(usize, &str)> = Vec::new();
        text::words(text, |word| {
            // Each word is a slice of `text`, so its address gives its place.
            let start = word.as_ptr() as usize - text.as_ptr() as usize;
            words.push((start, &text[start..start + word.len()]));
        });
        let numeric = |word: &str| word.chars().all(char::is_numeric);
        let mut in_date = vec![false; words.len()];
        let mut dated = false;
        // Both in the text's order: the runs are passed as the words are.
        let mut dotted = dotted_dates(bytes).into_iter().peekable();
        for (at, &(start, word)) in words.iter().enumerate() {
            while dotted.next_if(|run| run.end <= start).is_some() {}
            if !numeric(word) {
                continue;
            }
            if dotted.peek().is_some_and(|run| run.contains(&start)) {
                in_date[at] = true;
                dated = true;
                continue;
            }
            let end = start + word.len();
            // `2024-05-01`, `12/05`, `16:00`: digits joined to digits.
            let joined = |sign: Option<&u8>, digit: Option<&u8>| {
                sign.is_some_and(|sign| matches!(sign, b'-' | b'/' | b':'))
                    && digit.is_some_and(u8::is_ascii_digit)
            };
            let before = start
                .checked_sub(2)
                .is_some_and(|from| joined(bytes.get(from + 1), bytes.get(from)));
            let after = joined(bytes.get(end), bytes.get(end + 1));
            // `4pm`, `4 pm`.
            let from = if bytes.get(end) == Some(&b' ') {
                end + 1
            } else {
                end
            };
            let meridiem = bytes.get(from..from + 2).is_some_and(|half| {
                half.eq_ignore_ascii_case(b"am") || half.eq_ignore_ascii_case(b"pm")
            }) && bytes
                .get(from + 2)
                .is_none_or(|next| !next.is_ascii_alphanumeric());
            if before || after || meridiem {
                in_date[at] = true;
                dated = true;
            }
        }
        for (at, &(_, word)) in words.iter().enumerate() {
            if !MONTHS.iter().any(|name| name.eq_ignore_ascii_case(word)) {
                continue;
            }
            let capitalised = word.starts_with(|c: char| c.is_ascii_uppercase());
            // Its day before it, its day and year after it.
            let mut near = Vec::new();
            let mut walk = |places: &mut dyn Iterator<Item = usize>, most: usize| {
                let mut found = 0;
                for place in places {
                    let word = words[place].1;
                    if numeric(word) {
                        near.push(place);
                        found += 1;
                        if found == most {
                            break;
                        }
                    } else if !BETWEEN
                        .iter()
                        .any(|between| between.eq_ignore_ascii_case(word))
                    {
                        break;
                    }
                }
            };
            walk(&mut (0..at).rev().take(3), 1);
            walk(&mut (at + 1..words.len()).take(5), 2);
            if capitalised || !near.is_empty() {
                dated = true;
                for place in near {
                    in_date[place] = true;
                }
            }
        }
        Dates {
            dated,
            numbers: in_date.iter().filter(|&&held| held).count(),
        }
    }
}
