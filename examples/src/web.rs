//! `fetch`: a web page over HTTP, as text, with a `web` card.
//!
//! The client is `ureq` with its default features off: no TLS, so only
//! `http://` addresses can be fetched, which the tool's `validate` says
//! before anything runs.

use std::time::Duration;

use dsh_kit::card::WebCard;
use dsh_kit::prelude::*;
use ureq::ResponseExt;

/// How many characters of a page's text a call returns when it does not say.
pub const DEFAULT_MAX_CHARS: u32 = 20_000;

/// How many characters of the text the card shows.
pub const EXCERPT_CHARS: usize = 500;

/// The most bytes of a body read; past that the fetch fails.
pub const MAX_BODY_BYTES: u64 = 5 << 20;

/// Arguments of `fetch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FetchArgs {
    /// The page's address; `http://` only (this build has no TLS)
    #[schemars(length(min = 8))]
    pub url: String,
    /// The most characters of the page's text to return (default 20000)
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_chars: Option<u32>,
}

/// A fetched page, as text.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// Where the page was found, after redirects
    pub url: String,
    /// The HTTP status
    pub status: u16,
    /// The media type, such as `text/html`
    pub content_type: Option<String>,
    /// The HTML `<title>`, if any
    pub title: Option<String>,
    /// The page's text: an HTML page without its tags, scripts and styles
    pub text: String,
    /// Whether the text was cut to `max_chars`
    pub truncated: bool,
}

/// Fetch a web page over HTTP and return its title and text.
#[tool(
    read_only,
    concurrency_safe,
    idempotent,
    open_world,
    meta("com.example/network" = "http", "com.example/max_bytes" = 2_000_000),
    category = "web",
    validate = plain_http,
    render = page_text,
    present = page_card,
    present_call = page_loading
)]
pub async fn fetch(args: FetchArgs, exec: &Exec) -> Result<Page, ToolError> {
    let url = args.url.clone();
    let max_chars = args.max_chars.unwrap_or(DEFAULT_MAX_CHARS) as usize;
    // ureq blocks: run it off the async threads. A cancelled call stops
    // waiting for it at once; the request itself ends at its timeout.
    let request = tokio::task::spawn_blocking(move || get(&url));
    let (final_url, status, content_type, body) = tokio::select! {
        fetched = request => fetched
            .map_err(|error| ToolError::new(format!("the fetch stopped: {error}")))??,
        () = exec.cancellation().cancelled() => {
            return Err(ToolError::new("the fetch was cancelled"));
        }
    };
    let is_html = content_type
        .as_deref()
        .is_none_or(|kind| kind.contains("html"));
    let (title, text) = if is_html {
        (html_title(&body), html_text(&body))
    } else {
        (None, body)
    };
    let truncated = text.chars().count() > max_chars;
    Ok(Page {
        url: final_url,
        status,
        content_type,
        title,
        text: text.chars().take(max_chars).collect(),
        truncated,
    })
}

/// Refuses what this build cannot fetch, before anything runs.
fn plain_http(args: &FetchArgs, _: &Exec) -> Validation {
    if args.url.starts_with("http://") {
        Validation::Ok
    } else if args.url.starts_with("https://") {
        Validation::invalid(
            format!(
                "cannot fetch `{}`: this build has no TLS, so only `http://` addresses work",
                args.url
            ),
            1,
        )
    } else {
        Validation::invalid(format!("`{}` is not an `http://` address", args.url), 2)
    }
}

/// GETs `url`: the final address, the status, the media type and the body.
fn get(url: &str) -> Result<(String, u16, Option<String>, String), ToolError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent
        .get(url)
        .call()
        .map_err(|error| ToolError::new(format!("cannot fetch {url}: {error}")))?;
    let status = response.status();
    if !status.is_success() {
        return Err(ToolError::new(format!(
            "cannot fetch {url}: the server answered {status}"
        )));
    }
    let final_url = response.get_uri().to_string();
    let content_type = response.body().mime_type().map(str::to_owned);
    if let Some(kind) = &content_type
        && !(kind.starts_with("text/") || kind.contains("json") || kind.contains("xml"))
    {
        return Err(ToolError::new(format!(
            "{url} is `{kind}`, not text: this tool reads text pages only"
        )));
    }
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_BYTES)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(|error| ToolError::new(format!("cannot read {url}: {error}")))?;
    Ok((final_url, status.as_u16(), content_type, body))
}

// A full HTML parser (html5ever, under `scraper`) is a large dependency for
// an example that needs a title and readable text; these few lines cover
// that, and the value is the same on a replay since it is stored already
// extracted.

/// The text of the first `<title>` element.
fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = collapse_whitespace(&decode_entities(&html[start..end]));
    (!title.is_empty()).then_some(title)
}

/// The readable text of an HTML page: no tags, no `<head>`, `<script>` or
/// `<style>` content, entities decoded, a line per block, spaces collapsed.
fn html_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut text = String::new();
    let mut at = 0;
    while let Some(offset) = lower[at..].find('<') {
        let open = at + offset;
        text.push_str(&html[at..open]);
        let Some(close) = lower[open..].find('>').map(|end| open + end) else {
            at = html.len();
            break;
        };
        let tag = lower[open + 1..close]
            .trim_start_matches('/')
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or_default();
        at = close + 1;
        match tag {
            // Skip the element's content, up to its closing tag.
            "head" | "script" | "style" | "noscript" | "template"
                if !lower[open + 1..].starts_with('/') =>
            {
                let end = format!("</{tag}");
                at = lower[at..]
                    .find(&end)
                    .and_then(|found| lower[at + found..].find('>').map(|gt| at + found + gt + 1))
                    .unwrap_or(html.len());
            }
            "p" | "div" | "br" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
            | "section" | "article" | "header" | "footer" | "pre" | "blockquote" => {
                text.push('\n');
            }
            _ => {}
        }
    }
    text.push_str(&html[at.min(html.len())..]);
    decode_entities(&text)
        .lines()
        .map(collapse_whitespace)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The entities pages use most; others are left as written.
fn decode_entities(text: &str) -> String {
    text.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The title, the address, then the text.
#[render]
pub fn page_text(_args: &FetchArgs, page: &Page) -> Vec<ContentBlock> {
    let mut text = String::new();
    if let Some(title) = &page.title {
        text.push_str(&format!("# {title}\n"));
    }
    text.push_str(&format!("{}\n\n{}", page.url, page.text));
    if page.truncated {
        text.push_str("\n[the page goes on: ask for more with `max_chars`]");
    }
    vec![ContentBlock::text(text)]
}

/// A `web` card: the address, the title and the start of the text.
#[present]
pub fn page_card(_args: &FetchArgs, page: &Page) -> Card {
    let excerpt: String = page.text.chars().take(EXCERPT_CHARS).collect();
    let card = WebCard::new(&page.url, excerpt);
    Card::from(match &page.title {
        Some(title) => card.title(title),
        None => card,
    })
}

/// A `web` card of the address alone, while the page loads.
#[present]
pub fn page_loading(args: &FetchArgs) -> Card {
    Card::from(WebCard::new(&args.url, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_a_title_and_text() {
        let html = "<!doctype html><html><head><title> A &amp; B </title><style>p{}</style></head>\
            <body><h1>Hello</h1><p>One   two<br>three &lt;4&gt;</p><script>var x = '<p>';</script><p>end</p></body></html>";
        assert_eq!(html_title(html).as_deref(), Some("A & B"));
        assert_eq!(html_text(html), "Hello\nOne two\nthree <4>\nend");
    }

    #[test]
    fn a_page_without_a_title_has_none() {
        assert_eq!(html_title("<p>x</p>"), None);
        assert_eq!(html_title("<title>  </title>"), None);
    }
}
