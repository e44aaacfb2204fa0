//! How `dsh` talks to a person: styles that [`anstream`] keeps only on a
//! terminal, a spinner on standard error while something slow happens, and
//! notes and warnings on standard error.

use std::fmt::Display;
use std::io::Write as _;
use std::time::Duration;

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How cards and session logs are drawn: always in colour, like [`paint`];
/// [`out`] keeps the colours only on a terminal.
pub const DRAWING: dsh_kit::card::terminal::Style = dsh_kit::card::terminal::Style::COLOR;

/// What a piece of text is, for its colour.
#[derive(Clone, Copy, Debug)]
pub enum Paint {
    /// A heading or a name.
    Bold,
    /// Frames, labels, what matters less.
    Dim,
    /// Errors, removed lines, failures.
    Red,
    /// Success, added lines.
    Green,
    /// Warnings, what was skipped.
    Yellow,
    /// Places: hunk headers, locations, URLs.
    Cyan,
}

impl Paint {
    fn style(self) -> Style {
        match self {
            Paint::Bold => Style::new().bold(),
            Paint::Dim => Style::new().dimmed(),
            Paint::Red => AnsiColor::Red.on_default(),
            Paint::Green => AnsiColor::Green.on_default(),
            Paint::Yellow => AnsiColor::Yellow.on_default(),
            Paint::Cyan => AnsiColor::Cyan.on_default(),
        }
    }
}

/// `text` in `paint`'s style. The escape codes stay in the string; the
/// [`anstream`] writers `dsh` prints through drop them unless they write to
/// a terminal that wants colours (`NO_COLOR` unset, `CLICOLOR_FORCE` forces).
pub fn paint(paint: Paint, text: impl Display) -> String {
    let text = text.to_string();
    if text.is_empty() {
        return text;
    }
    let style = paint.style();
    format!("{style}{text}{style:#}")
}

/// Prints `text` to standard output as is (colours kept only on a terminal).
pub fn out(text: &str) {
    let mut stdout = anstream::stdout().lock();
    // A closed pipe (`dsh inspect | head`) is not worth a panic.
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// A line on standard error, for a person: what happens, what happened.
pub fn note(text: impl Display) {
    let _ = writeln!(anstream::stderr(), "{} {text}", paint(Paint::Dim, "dsh:"));
}

/// A warning on standard error.
pub fn warn(text: impl Display) {
    let _ = writeln!(
        anstream::stderr(),
        "{} {text}",
        paint(Paint::Yellow, "warning:")
    );
}

/// A spinner on standard error with `message`, turning until dropped or
/// [`finished`](Spinner::finish). It draws nothing when standard error is
/// not a terminal, so logs and tests see no control codes.
pub struct Spinner(ProgressBar);

impl Spinner {
    /// Starts turning.
    pub fn start(message: impl Into<String>) -> Spinner {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner:.cyan} {msg} {elapsed:.dim}") {
            bar.set_style(style);
        }
        bar.set_message(message.into());
        bar.enable_steady_tick(Duration::from_millis(100));
        Spinner(bar)
    }

    /// Stops turning and clears its line.
    pub fn finish(self) {
        self.0.finish_and_clear();
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if !self.0.is_finished() {
            self.0.finish_and_clear();
        }
    }
}
