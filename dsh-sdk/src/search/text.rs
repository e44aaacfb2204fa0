//! Tool text into search terms: identifiers split into words, case and
//! accents folded, stop words dropped, each word stemmed; and the query-side
//! expansion of action verbs that tools name in different words.

use std::borrow::Cow;
use std::sync::LazyLock;

use foldhash::{HashMap, HashMapExt};

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// Words a tool's text or a query is no better found by: English function
/// words and the politeness and filler of a request ("can you please help me
/// find…"). Verbs that name an action (`get`, `list`, `send`) are kept.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "etc",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "help",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "kindly",
    "let",
    "like",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "need",
    "needs",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "please",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "want",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Verbs tools and people use for the same action, one group a line. A
/// query word in a group also looks for the others, at a lower weight.
const SYNONYMS: &[&[&str]] = &[
    &[
        "get", "fetch", "retrieve", "obtain", "read", "show", "view", "display", "lookup",
    ],
    &["find", "search", "lookup", "locate", "query", "discover"],
    &["create", "add", "make", "new", "insert"],
    &["delete", "remove", "erase", "destroy", "drop"],
    &[
        "update", "modify", "change", "edit", "alter", "adjust", "set",
    ],
    &["send", "post", "submit", "deliver"],
    &["calculate", "compute", "estimate", "determine"],
    &["book", "reserve", "schedule"],
    &["buy", "purchase", "order"],
    &["list", "enumerate"],
    &["start", "begin", "launch", "run"],
    &["stop", "end", "terminate", "halt"],
    &["check", "verify", "validate"],
    &["convert", "translate", "transform"],
];

/// Words and the short forms identifiers write them as, one group a line,
/// its words apart.
/// A query word's own beginnings of four letters or more are looked for
/// anyway (`calc`, `temp`, `info`); these groups add the shorter and the
/// irregular ones (`arg`, `db`, `cmd`) and the way back, from a short form
/// in a query to the word a tool spells out. A query word in a group also
/// looks for the others, so "run a command" finds `cmd_execute` and "avg
/// price" finds `average_price`.
const ABBREVIATIONS: &str = "\
account acct
address addr
amount amt
application app
argument arg
attribute attr
average avg
button btn
centimeter centimetre cm
command cmd
configuration config cfg conf
context ctx
count cnt
database db
department dept
destination dst dest
directory dir
document doc
environment env
error err
function func fn
hour hr
identifier id
image img
index idx
javascript js
kilogram kg
kilometer kilometre km
language lang
latitude lat
length len
library lib
longitude lng lon
manager mgr
maximum max
message msg
minimum min
minute min
number num
object obj
organization organisation org
parameter param
password pwd passwd
percent percentage pct
picture pic
position pos
previous prev
python py
quantity qty
reference ref
repository repo
request req
response resp
source src
specification spec
standard std
string str
telephone phone tel
temporary tmp
transaction txn
user usr
value val
variable var
year yr
";

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Each stemmed synonym to the other stems of its groups.
static EXPANSIONS: LazyLock<HashMap<String, Vec<String>>> =
    LazyLock::new(|| by_stem(SYNONYMS.iter().map(|group| group.iter().copied())));

/// Each stemmed word or abbreviation to the other stems of its groups.
static ABBREVIATED: LazyLock<HashMap<String, Vec<String>>> =
    LazyLock::new(|| by_stem(ABBREVIATIONS.lines().map(str::split_whitespace)));

/// Each stem of `groups` to the other stems of the groups it is in.
fn by_stem<'a, G>(groups: impl Iterator<Item = G>) -> HashMap<String, Vec<String>>
where
    G: Iterator<Item = &'a str>,
{
    let mut expansions: HashMap<String, Vec<String>> = HashMap::new();
    for group in groups {
        let stems: Vec<String> = group.map(stem).collect();
        for (at, from) in stems.iter().enumerate() {
            let entry = expansions.entry(from.clone()).or_default();
            for (other, to) in stems.iter().enumerate() {
                if other != at && to != from && !entry.contains(to) {
                    entry.push(to.clone());
                }
            }
        }
    }
    expansions
}

fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// The search term of one word that [`words`] cut out, or `None` for a word
/// that says nothing: the word lowercased and its Latin letters' accents
/// dropped (into `lowered`, reused from one word to the next), then stemmed;
/// stop words and one-character words give `None`, but for a lone character
/// of a script written without spaces.
pub(crate) fn term<'a>(word: &str, lowered: &'a mut String) -> Option<Cow<'a, str>> {
    // One character says nothing, unless it is a word of a script written
    // without spaces (`天`).
    let mut chars = word.chars();
    let first = chars.next()?;
    if chars.next().is_none() && !is_dense(first) {
        return None;
    }
    lowered.clear();
    if word.is_ascii() {
        lowered.push_str(word);
        lowered.make_ascii_lowercase();
    } else {
        for c in word.chars() {
            fold(c, lowered);
        }
    }
    if STOP_WORDS.binary_search(&lowered.as_str()).is_ok() {
        return None;
    }
    Some(STEMMER.stem(lowered))
}

/// Pushes `c` lowercased onto `into`, a Latin letter without its accents
/// (`É` gives `e`, `ñ` gives `n`), as people often type them without.
fn fold(c: char, into: &mut String) {
    if matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}') {
        decompose_canonical(c, |part| {
            if !is_combining_mark(part) {
                into.extend(part.to_lowercase());
            }
        });
    } else {
        into.extend(c.to_lowercase());
    }
}

/// Calls `each` with each search term of `text`, in order, at most `max`
/// times, and whether its word is a number.
///
/// Words are runs of letters and digits, split again where an identifier's
/// case style or digits mark a new word: `getUserID`, `get_user_id`,
/// `get-user.id` and `GET USER ID` all give `get`, `user`, `id`. Words are
/// lowercased and Latin letters lose their accents (`Café` gives `cafe`);
/// one-character words (but a lone Chinese or Japanese character) and stop
/// words are dropped; the rest are stemmed (Snowball's English stemmer,
/// Porter2), so `emails`, `emailing` and `emailed` all give `email`. Text
/// in a script written without spaces gives pairs of characters (see
/// [`words`]).
pub(crate) fn terms(text: &str, max: usize, mut each: impl FnMut(&str, bool)) {
    let mut emitted = 0;
    let mut lowered = String::new();
    words(text, |word| {
        if emitted >= max {
            return;
        }
        if let Some(found) = term(word, &mut lowered) {
            emitted += 1;
            each(&found, word.chars().all(char::is_numeric));
        }
    });
}

/// The other stems a query term also looks for (see `SYNONYMS`).
pub(crate) fn expansions(term: &str) -> &'static [String] {
    EXPANSIONS.get(term).map_or(&[], Vec::as_slice)
}

/// The other stems a query term stands for as a word or its abbreviation
/// (see `ABBREVIATIONS`).
pub(crate) fn abbreviations(term: &str) -> &'static [String] {
    ABBREVIATED.get(term).map_or(&[], Vec::as_slice)
}

/// Splits `text` into words: runs of alphanumeric characters, cut where a
/// lowercase letter meets an uppercase one (`getUser`), before the last
/// capital of a capitalised run that goes on in lowercase (`HTTPServer`), and
/// where letters meet digits (`utf8`, `v2api`).
///
/// Scripts written without spaces between words (Chinese, Japanese, Thai,
/// and Korean, whose words carry their particles) have no word boundaries
/// to find, so a run of them gives its overlapping pairs of characters
/// instead, as CJK search engines index them: `查询天气` gives `查询`, `询天`
/// and `天气`, which a query saying `天气` finds. A lone such character is a
/// word of its own.
pub(crate) fn words(text: &str, word: impl FnMut(&str)) {
    // Most tool text is ASCII: read it a byte at a time, with no decoding
    // and no Unicode tables.
    if text.is_ascii() {
        let kinds = text.bytes().map(|byte| match byte {
            b'0'..=b'9' => Kind::Digit,
            b'A'..=b'Z' => Kind::Upper,
            b'a'..=b'z' => Kind::Lower,
            _ => Kind::Other,
        });
        split(text, kinds.enumerate(), word);
    } else {
        let kinds = text.char_indices().map(|(at, c)| {
            let kind = if is_dense(c) {
                Kind::Dense
            } else if c.is_numeric() {
                Kind::Digit
            } else if c.is_uppercase() {
                Kind::Upper
            } else if c.is_alphabetic() {
                Kind::Lower
            } else {
                Kind::Other
            };
            (at, kind)
        });
        split(text, kinds, word);
    }
}

/// What a character is to [`words`].
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lower,
    Upper,
    Digit,
    /// A letter of a script written without spaces (see [`is_dense`]).
    Dense,
    Other,
}

/// Whether `c` belongs to a script written without spaces between words, or,
/// for Korean, with particles joined to them: Han, Hiragana, Katakana,
/// Hangul, Thai, Lao, Khmer and Myanmar. Their text is searched by pairs of
/// characters (see [`words`]); the marks written over and under letters
/// (Thai tone marks, Japanese voicing marks) belong to the run.
fn is_dense(c: char) -> bool {
    matches!(
        c,
        '\u{0E00}'..='\u{0EFF}' // Thai, Lao
            | '\u{1000}'..='\u{109F}' // Myanmar
            | '\u{1100}'..='\u{11FF}' // Hangul jamo
            | '\u{1780}'..='\u{17FF}' // Khmer
            | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
            | '\u{3130}'..='\u{318F}' // Hangul compatibility jamo
            | '\u{31F0}'..='\u{31FF}' // Katakana extensions
            | '\u{3400}'..='\u{4DBF}' // Han, extension A
            | '\u{4E00}'..='\u{9FFF}' // Han
            | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
            | '\u{F900}'..='\u{FAFF}' // Han compatibility
            | '\u{FF66}'..='\u{FF9F}' // halfwidth Katakana
            | '\u{20000}'..='\u{3134F}' // Han, supplementary planes
    ) && (c.is_alphanumeric() || is_combining_mark(c))
}

/// [`words`] over `text`'s characters, given as where each starts and its kind.
fn split(text: &str, kinds: impl Iterator<Item = (usize, Kind)>, mut word: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    let mut kinds = kinds.peekable();
    let mut previous = Kind::Other;
    while let Some((at, this)) = kinds.next() {
        let next = kinds.peek().map_or(Kind::Other, |&(_, kind)| kind);
        let boundary = match (previous, this) {
            (_, Kind::Other) => true,
            (Kind::Other, _) => false,
            (Kind::Dense, Kind::Dense) => false,
            (Kind::Dense, _) | (_, Kind::Dense) => true,
            (Kind::Lower, Kind::Upper) => true,
            (Kind::Upper, Kind::Upper) => next == Kind::Lower,
            (Kind::Digit, Kind::Digit) => false,
            (Kind::Digit, _) | (_, Kind::Digit) => true,
            _ => false,
        };
        if boundary && let Some(from) = start.take() {
            emit(&text[from..at], previous, &mut word);
        }
        if this != Kind::Other && start.is_none() {
            start = Some(at);
        }
        previous = this;
    }
    if let Some(from) = start {
        emit(&text[from..], previous, &mut word);
    }
}

/// One run of [`split`], ended by a character of kind `last`: a word, or,
/// for a run of a script written without spaces, its overlapping pairs of
/// characters (the run itself when it is one character).
fn emit(run: &str, last: Kind, word: &mut impl FnMut(&str)) {
    if last != Kind::Dense {
        return word(run);
    }
    let mut starts = run.char_indices().map(|(at, _)| at).skip(1).peekable();
    if starts.peek().is_none() {
        return word(run);
    }
    let mut from = 0;
    while let Some(next) = starts.next() {
        let to = starts.peek().copied().unwrap_or(run.len());
        word(&run[from..to]);
        from = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        terms(text, usize::MAX, |term, _| found.push(term.to_owned()));
        found
    }

    #[test]
    fn ascii_text_splits_as_any_text_does() {
        let split = |text: &str| {
            let mut found = Vec::new();
            words(text, |word| found.push(word.to_owned()));
            found
        };
        let text = "getUserID, get_user-id.v2api HTTPServer 2024-05-01T16:00 x9Y utf8";
        let ascii = split(text);
        assert_eq!(
            ascii,
            [
                "get", "User", "ID", "get", "user", "id", "v", "2", "api", "HTTP", "Server",
                "2024", "05", "01", "T", "16", "00", "x", "9", "Y", "utf", "8"
            ]
        );
        // The same text ending in a word that is not ASCII is read a
        // character at a time, and splits the same up to that word.
        let mut other = split(&format!("{text} café"));
        assert_eq!(other.pop().as_deref(), Some("café"));
        assert_eq!(other, ascii);
    }

    #[test]
    fn text_without_spaces_gives_pairs_of_characters() {
        assert_eq!(all("查询天气"), ["查询", "询天", "天气"]);
        // Each run apart; a lone character is a word; other words as usual.
        assert_eq!(
            all("获取工单 getTickets 天"),
            ["获取", "取工", "工单", "get", "ticket", "天"]
        );
        assert_eq!(
            all("スケジュール"),
            ["スケ", "ケジ", "ジュ", "ュー", "ール"]
        );
        assert_eq!(all("날씨를 알려줘"), ["날씨", "씨를", "알려", "려줘"]);
        // A Thai tone mark is part of its word, not a break in it.
        assert_eq!(all("ผ้า"), ["ผ\u{0E49}", "\u{0E49}า"]);
        // Punctuation of these scripts ends a run.
        assert_eq!(all("天气，工单。"), ["天气", "工单"]);
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn identifiers_split_the_same_whatever_their_case_style() {
        for name in [
            "getUserID",
            "get_user_id",
            "GetUserId",
            "get-user.id",
            "GET_USER_ID",
        ] {
            assert_eq!(all(name), ["get", "user", "id"], "{name}");
        }
        assert_eq!(all("HTTPServer2xx"), ["http", "server", "xx"]);
        assert_eq!(all("sha256sum"), ["sha", "256", "sum"]);
    }

    #[test]
    fn word_forms_share_a_stem_and_stop_words_go() {
        assert_eq!(all("Can you please send the emails?"), ["send", "email"]);
        assert_eq!(all("emailing"), all("emailed"));
        assert_eq!(all("ÜBER Straße"), all("über straße"));
        // Accents of Latin letters go: people often type words without.
        assert_eq!(all("Café crème brûlée"), ["cafe", "creme", "brule"]);
        assert_eq!(all("Müller Ñandú Łódź"), ["muller", "nandu", "łodz"]);
    }

    #[test]
    fn terms_stop_at_the_bound() {
        let mut count = 0;
        terms(&"word ".repeat(1_000), 10, |_, _| count += 1);
        assert_eq!(count, 10);
    }

    #[test]
    fn synonyms_expand_both_ways_by_stem() {
        assert!(expansions(&stem("fetch")).contains(&stem("retrieve")));
        assert!(expansions(&stem("retrieving")).contains(&stem("get")));
        assert!(expansions("quantum").is_empty());
    }

    #[test]
    fn abbreviations_stand_for_their_words_both_ways_by_stem() {
        assert!(abbreviations(&stem("commands")).contains(&"cmd".to_owned()));
        assert!(abbreviations("cmd").contains(&stem("command")));
        assert!(abbreviations("avg").contains(&stem("averaging")));
        // `calc` begins "calculate": the prefix lookup finds it, no group.
        assert!(abbreviations(&stem("calculate")).is_empty());
        // Every group holds two stems or more that differ, so each stands
        // for something else.
        for group in ABBREVIATIONS.lines() {
            let stems: Vec<String> = group.split_whitespace().map(stem).collect();
            assert!(stems.len() >= 2, "{group}");
            assert!(
                stems.iter().all(|held| !abbreviations(held).is_empty()),
                "{group}"
            );
        }
    }
}
