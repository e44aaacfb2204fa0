//! What dsh-kit warns of while a command runs (a card a server sent that
//! is not shown, say), on standard error as `warning:` lines, through a
//! `tracing` layer of its own: no log format, no filter syntax to learn.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};

use crate::ui::warn;

/// Prints dsh-kit's warnings and errors from now on. The playground records
/// the calls made from its page with a subscriber of their own: their
/// warnings show in the page's trace of the call instead.
pub fn show() {
    let subscriber = tracing_subscriber::registry().with(Warnings);
    // Set once, at start; a second call (none) would keep the first.
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// The layer that prints them.
struct Warnings;

impl<S: Subscriber> Layer<S> for Warnings {
    fn on_event(&self, event: &Event<'_>, _context: Context<'_, S>) {
        let metadata = event.metadata();
        if *metadata.level() > Level::WARN || !metadata.target().starts_with("dsh_kit") {
            return;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        warn(message.0);
    }
}

/// An event's message.
struct Message(String);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = value.to_owned();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}
