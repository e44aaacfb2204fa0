//! The `format` keyword, asserted: a string that claims to be a `date`, an
//! `email` or a `uuid` is checked to be one. Formats the validator does not
//! know pass, as JSON Schema asks.

use std::net::{Ipv4Addr, Ipv6Addr};

/// A format the validator checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Date,
    DateTime,
    Time,
    Duration,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    Uuid,
    Regex,
    JsonPointer,
    RelativeJsonPointer,
}

impl Format {
    /// The format `name` stands for, if the validator checks it.
    pub(crate) fn named(name: &str) -> Option<Format> {
        Some(match name {
            "date" => Format::Date,
            "date-time" => Format::DateTime,
            "time" => Format::Time,
            "duration" => Format::Duration,
            "email" | "idn-email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri,
            "uri-reference" => Format::UriReference,
            "iri" => Format::Iri,
            "iri-reference" => Format::IriReference,
            "uuid" => Format::Uuid,
            "regex" => Format::Regex,
            "json-pointer" => Format::JsonPointer,
            "relative-json-pointer" => Format::RelativeJsonPointer,
            _ => return None,
        })
    }

    /// Whether `text` is written in this format.
    pub(crate) fn accepts(self, text: &str) -> bool {
        match self {
            Format::Date => date(text),
            Format::DateTime => date_time(text),
            Format::Time => time(text),
            Format::Duration => duration(text),
            Format::Email => email(text),
            Format::Hostname => hostname(text),
            Format::Ipv4 => text.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => text.parse::<Ipv6Addr>().is_ok(),
            Format::Uri => fluent_uri::Uri::parse(text).is_ok(),
            Format::UriReference => fluent_uri::UriRef::parse(text).is_ok(),
            Format::Iri => fluent_uri::Iri::parse(text).is_ok(),
            Format::IriReference => fluent_uri::IriRef::parse(text).is_ok(),
            Format::Uuid => uuid(text),
            Format::Regex => regex::Regex::new(text).is_ok(),
            Format::JsonPointer => json_pointer(text),
            Format::RelativeJsonPointer => relative_json_pointer(text),
        }
    }
}

/// `n` ASCII digits at the start of `text`, as a number, and the rest.
fn digits(text: &str, n: usize) -> Option<(u32, &str)> {
    let head = text.get(..n)?;
    if !head.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &text[n..]))
}

/// `YYYY-MM-DD`, a day that exists in that month of that year.
fn date(text: &str) -> bool {
    text.len() == 10 && full_date(text).is_some()
}

fn full_date(text: &str) -> Option<&str> {
    let (year, rest) = digits(text, 4)?;
    let rest = rest.strip_prefix('-')?;
    let (month, rest) = digits(rest, 2)?;
    let rest = rest.strip_prefix('-')?;
    let (day, rest) = digits(rest, 2)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&day).then_some(rest)
}

/// `HH:MM:SS`, an optional fraction, and `Z` or an offset; a leap second
/// only where it is 23:59:60 in UTC.
fn time(text: &str) -> bool {
    let parse = || -> Option<()> {
        let (hour, rest) = digits(text, 2)?;
        let rest = rest.strip_prefix(':')?;
        let (minute, rest) = digits(rest, 2)?;
        let rest = rest.strip_prefix(':')?;
        let (second, mut rest) = digits(rest, 2)?;
        if let Some(fraction) = rest.strip_prefix('.') {
            let count = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if count == 0 {
                return None;
            }
            rest = &fraction[count..];
        }
        let (offset_hour, offset_minute, sign) = match rest {
            "Z" | "z" => (0, 0, 0),
            _ => {
                let sign = match rest.as_bytes().first()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                let (h, rest) = digits(&rest[1..], 2)?;
                let rest = rest.strip_prefix(':')?;
                let (m, rest) = digits(rest, 2)?;
                if !rest.is_empty() || h > 23 || m > 59 {
                    return None;
                }
                (h, m, sign)
            }
        };
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        if second == 60 {
            let local = i64::from(hour * 60 + minute);
            let offset = i64::from(offset_hour * 60 + offset_minute) * sign;
            let utc = (local - offset).rem_euclid(24 * 60);
            if utc != 23 * 60 + 59 {
                return None;
            }
        }
        Some(())
    };
    parse().is_some()
}

/// A date, `T`, a time.
fn date_time(text: &str) -> bool {
    let Some(rest) = full_date(text) else {
        return false;
    };
    match rest.strip_prefix(['T', 't']) {
        Some(rest) => time(rest),
        None => false,
    }
}

/// ISO 8601 durations: `P1Y2M`, `PT3H`, `P4W`.
fn duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    if rest.is_empty() {
        return false;
    }
    if let Some(weeks) = rest.strip_suffix('W') {
        return !weeks.is_empty() && weeks.bytes().all(|byte| byte.is_ascii_digit());
    }
    let (date_part, time_part) = match rest.split_once('T') {
        Some((date_part, time_part)) => (date_part, Some(time_part)),
        None => (rest, None),
    };
    let units = |part: &str, order: &[u8]| -> Option<usize> {
        let mut count = 0;
        let mut next = 0;
        let mut number = false;
        for byte in part.bytes() {
            if byte.is_ascii_digit() {
                number = true;
                continue;
            }
            let at = order.iter().position(|unit| *unit == byte)?;
            // Units come in order and with none skipped between two given:
            // `P1Y2D` leaves out the months it would need.
            if !number || at < next || (count > 0 && at != next) {
                return None;
            }
            next = at + 1;
            count += 1;
            number = false;
        }
        (!number).then_some(count)
    };
    let Some(date_units) = units(date_part, b"YMD") else {
        return false;
    };
    match time_part {
        Some(time_part) => units(time_part, b"HMS").is_some_and(|count| count > 0),
        None => date_units > 0,
    }
}

/// `local@domain`: a local part of dot-separated atoms or a quoted string,
/// and a hostname or an address literal.
fn email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        true
    } else {
        !local.is_empty()
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .chars()
                .all(|c| c.is_alphanumeric() || !c.is_ascii() || "!#$%&'*+-/=?^_`{|}~.".contains(c))
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
            None => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => !domain.is_empty() && (domain.chars().all(|c| !c.is_ascii()) || hostname(domain)),
    };
    local_ok && domain_ok
}

/// Dot-separated labels of letters, digits and inner hyphens, each at most
/// 63 characters, 253 in all.
fn hostname(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// `8-4-4-4-12` hexadecimal digits.
fn uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Empty, or `/`-led tokens whose `~` is always `~0` or `~1`.
fn json_pointer(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    text.starts_with('/') && escapes_are_whole(text)
}

fn escapes_are_whole(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .all(|(at, byte)| *byte != b'~' || matches!(bytes.get(at + 1), Some(b'0' | b'1')))
}

/// A number of levels up (no leading zero), then `#` or a JSON pointer.
fn relative_json_pointer(text: &str) -> bool {
    let count = text.bytes().take_while(u8::is_ascii_digit).count();
    if count == 0 || (count > 1 && text.starts_with('0')) {
        return false;
    }
    let rest = &text[count..];
    rest == "#" || json_pointer(rest)
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn dates_exist() {
        assert!(Format::Date.accepts("2024-02-29"));
        assert!(!Format::Date.accepts("2023-02-29"));
        assert!(!Format::Date.accepts("2024-13-01"));
        assert!(!Format::Date.accepts("2024-1-01"));
    }

    #[test]
    fn times_carry_an_offset() {
        assert!(Format::DateTime.accepts("1963-06-19T08:30:06.283185Z"));
        assert!(Format::DateTime.accepts("1998-12-31T23:59:60Z"));
        assert!(!Format::DateTime.accepts("1998-12-31T22:59:60Z"));
        assert!(!Format::DateTime.accepts("1963-06-19T08:30:06"));
        assert!(Format::Time.accepts("08:30:06+02:00"));
    }

    #[test]
    fn durations_keep_their_order() {
        assert!(Format::Duration.accepts("P4DT12H30M5S"));
        assert!(Format::Duration.accepts("P2W"));
        assert!(!Format::Duration.accepts("PT"));
        assert!(!Format::Duration.accepts("P1D2Y"));
        assert!(!Format::Duration.accepts("P1Y2D"));
        assert!(Format::Duration.accepts("P1Y2M3D"));
    }

    #[test]
    fn addresses_and_identifiers() {
        assert!(Format::Email.accepts("joe.bloggs@example.com"));
        assert!(!Format::Email.accepts("2962"));
        assert!(Format::Uuid.accepts("2eb8aa08-aa98-11ea-b4aa-73b441d16380"));
        assert!(!Format::Uuid.accepts("2eb8aa08-aa98-11ea-b4aa-73b441d1638"));
        assert!(Format::Ipv4.accepts("192.168.0.1"));
        assert!(!Format::Ipv4.accepts("256.0.0.1"));
        assert!(Format::Uri.accepts("https://example.com/a?b#c"));
        assert!(!Format::Uri.accepts("//example.com"));
        assert!(Format::RelativeJsonPointer.accepts("0/a"));
        assert!(!Format::JsonPointer.accepts("/a~2"));
    }
}
