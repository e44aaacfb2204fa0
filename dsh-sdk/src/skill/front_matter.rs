//! The YAML front matter that opens a `SKILL.md`: read into JSON (with the
//! `skills` feature's YAML parser), written from it (as YAML in JSON's own
//! syntax, which needs none), and the rules on its `name` and `description`.

use serde_json::{Map, Value};

use super::{MAX_FRONT_MATTER_BYTES, SkillError};

/// What is wrong with the front matter of a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontMatterError {
    /// The file does not open with a `---` line.
    #[error("`SKILL.md` must open with YAML front matter: a `---` line, the fields, then `---`")]
    Missing,
    /// No `---` line closes it.
    #[error("the front matter of `SKILL.md` is never closed: no `---` line after the opening one")]
    Unclosed,
    /// Longer than [`MAX_FRONT_MATTER_BYTES`].
    #[error("the front matter of `SKILL.md` is over {MAX_FRONT_MATTER_BYTES} bytes")]
    TooLarge,
    /// Not YAML, or YAML that is no mapping of names to JSON values.
    #[error("the front matter of `SKILL.md` does not read as a YAML mapping: {0}")]
    Yaml(String),
    /// A required field is missing or not a string.
    #[error("the front matter of `SKILL.md` needs `{0}` as a string")]
    Field(&'static str),
}

/// The front matter of `markdown`, checked: `name` and `description` are
/// strings that keep the rules.
#[cfg(feature = "skills")]
pub(super) fn parse(markdown: &str) -> Result<Map<String, Value>, SkillError> {
    let (yaml, _) = split(markdown)?;
    let value: Value =
        yaml_serde::from_str(yaml).map_err(|error| FrontMatterError::Yaml(error.to_string()))?;
    let Value::Object(fields) = value else {
        return Err(FrontMatterError::Yaml("it is not a mapping".into()).into());
    };
    let Some(name) = fields.get("name").and_then(Value::as_str) else {
        return Err(FrontMatterError::Field("name").into());
    };
    let Some(description) = fields.get("description").and_then(Value::as_str) else {
        return Err(FrontMatterError::Field("description").into());
    };
    check_name(name)?;
    check_description(name, description)?;
    Ok(fields)
}

/// The YAML between the `---` lines, and the body after them.
fn split(markdown: &str) -> Result<(&str, &str), FrontMatterError> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontMatterError::Missing)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\n', '\r'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            let yaml = &rest[..offset];
            if yaml.len() > MAX_FRONT_MATTER_BYTES {
                return Err(FrontMatterError::TooLarge);
            }
            return Ok((yaml, &rest[offset + line.len()..]));
        }
        offset += line.len();
        if offset > MAX_FRONT_MATTER_BYTES {
            return Err(FrontMatterError::TooLarge);
        }
    }
    Err(FrontMatterError::Unclosed)
}

/// The body of a `SKILL.md`: what follows its front matter (all of it when
/// it has none).
pub(super) fn body(markdown: &str) -> &str {
    split(markdown).map_or(markdown, |(_, body)| {
        body.strip_prefix('\n').unwrap_or(body)
    })
}

/// A `SKILL.md` of `fields` as front matter, then `body`: `name` and
/// `description` first, as people write them, then the others in order.
///
/// Each line is `key: value`; a string that YAML would read as it is (a
/// letter first, then letters, digits, spaces and plain punctuation, and no
/// word YAML reads as a boolean or null) is written plain, any other value
/// in JSON's syntax, which YAML reads as the same value.
pub(super) fn render(fields: &Map<String, Value>, body: &str) -> Result<String, SkillError> {
    let mut yaml = String::new();
    let first = ["name", "description"];
    let ordered = first
        .iter()
        .filter_map(|key| fields.get_key_value(*key))
        .chain(
            fields
                .iter()
                .filter(|(key, _)| !first.contains(&key.as_str())),
        );
    for (key, value) in ordered {
        yaml.push_str(&scalar(key));
        yaml.push_str(": ");
        match value {
            Value::String(text) => yaml.push_str(&scalar(text)),
            other => yaml.push_str(&other.to_string()),
        }
        yaml.push('\n');
    }
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Err(FrontMatterError::TooLarge.into());
    }
    Ok(format!("---\n{yaml}---\n\n{body}"))
}

/// `text` as a YAML scalar: plain where YAML reads it back as this string,
/// else double-quoted with JSON's escapes.
fn scalar(text: &str) -> String {
    const WORDS: [&str; 11] = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf",
    ];
    let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " _-.,()/".contains(c))
        && !text.ends_with(' ')
        && !WORDS.contains(&text.to_ascii_lowercase().as_str());
    if plain {
        text.to_owned()
    } else {
        Value::from(text).to_string()
    }
}

/// The Agent Skills naming rule: 1 to 64 lowercase ASCII letters, digits
/// and `-`, no `-` first, last or twice in a row.
pub(super) fn check_name(name: &str) -> Result<(), SkillError> {
    let allowed = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if allowed {
        Ok(())
    } else {
        Err(SkillError::Name(name.to_owned()))
    }
}

/// 1 to 1024 characters, as Agent Skills asks.
pub(super) fn check_description(name: &str, description: &str) -> Result<(), SkillError> {
    let chars = description.chars().count();
    if (1..=1024).contains(&chars) && !description.trim().is_empty() {
        Ok(())
    } else {
        Err(SkillError::Description {
            name: name.to_owned(),
            chars,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "skills")]
    #[test]
    fn reads_front_matter_and_keeps_other_fields() {
        let fields = parse("---\nname: a-b\ndescription: Does b\nlicense: MIT\nmetadata:\n  version: \"1\"\n---\n# Body\n").unwrap();
        assert_eq!(fields["name"], "a-b");
        assert_eq!(fields["license"], "MIT");
        assert_eq!(fields["metadata"]["version"], "1");
    }

    #[cfg(feature = "skills")]
    #[test]
    fn render_reads_back_as_the_same_fields() {
        let mut fields = Map::new();
        fields.insert("description".into(), "Say: \"hi\" --- then go".into());
        fields.insert("name".into(), "greet".into());
        fields.insert("tags".into(), serde_json::json!(["a", "b"]));
        fields.insert("on".into(), "yes".into());
        fields.insert("version".into(), "1.0".into());
        fields.insert("plain".into(), "Just words, (and some) punctuation.".into());
        fields.insert(
            "metadata".into(),
            serde_json::json!({ "a: b": [1, 2.5, null, true] }),
        );
        let markdown = render(&fields, "# Greet\n").unwrap();
        assert!(
            markdown
                .starts_with("---\nname: greet\ndescription: \"Say: \\\"hi\\\" --- then go\"\n"),
            "{markdown}"
        );
        assert!(
            markdown.contains("\nplain: Just words, (and some) punctuation.\n"),
            "{markdown}"
        );
        assert_eq!(parse(&markdown).unwrap(), fields);
        assert_eq!(body(&markdown), "# Greet\n");
    }

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for good in ["a", "pdf-processing", "a1-b2", &"x".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[cfg(feature = "skills")]
    #[test]
    fn malformed_front_matter_says_what_is_wrong() {
        assert_eq!(
            parse("# no front matter"),
            Err(FrontMatterError::Missing.into())
        );
        assert_eq!(
            parse("---\nname: a\n"),
            Err(FrontMatterError::Unclosed.into())
        );
        assert_eq!(
            parse("---\nname: a\n---\n"),
            Err(FrontMatterError::Field("description").into())
        );
        assert!(matches!(
            parse("---\nname: [a\n---\n"),
            Err(SkillError::FrontMatter(FrontMatterError::Yaml(_)))
        ));
        let big = format!(
            "---\nname: a\ndescription: {}\n---\n",
            "x".repeat(MAX_FRONT_MATTER_BYTES)
        );
        assert_eq!(parse(&big), Err(FrontMatterError::TooLarge.into()));
    }
}
