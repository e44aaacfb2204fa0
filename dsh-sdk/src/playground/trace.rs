//! The spans of one call from the page, recorded for its waterfall: the
//! call's `execute_tool` span and every span and event inside it (the
//! approval, the execute stage, a proxied call, the spill), with their
//! times relative to the call's start.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// The most spans and events one call's recording keeps: a tool that
/// makes more (a loop of sub-calls) has the rest left out.
const MAX_RECORDED: usize = 256;

/// One span of a call's waterfall.
#[derive(Clone, Debug, Serialize)]
pub(super) struct RecordedSpan {
    /// Its index in the recording.
    id: usize,
    /// The index of the span it lies in, if recorded.
    parent: Option<usize>,
    /// Its OpenTelemetry name (`otel.name`), else its `tracing` name.
    name: String,
    /// Microseconds from the call's start to its own.
    start_us: u64,
    /// Microseconds from the call's start to its end; `None` while open.
    end_us: Option<u64>,
    /// Its `error.type`, when it failed.
    error: Option<String>,
    /// The events inside it: what stopped the call, the permission decision.
    events: Vec<RecordedEvent>,
}

/// One event of a recorded span.
#[derive(Clone, Debug, Serialize)]
pub(super) struct RecordedEvent {
    /// Microseconds from the call's start.
    at_us: u64,
    /// Its message, and its fields as `key=value`.
    text: String,
}

/// What a [`Recorder`] saw.
#[derive(Default)]
struct Recording {
    started: Option<Instant>,
    spans: Vec<RecordedSpan>,
    /// The `tracing` id of each recorded span, by index.
    ids: Vec<Id>,
}

impl Recording {
    fn micros(&mut self, at: Instant) -> u64 {
        let started = *self.started.get_or_insert(at);
        u64::try_from(at.duration_since(started).as_micros()).unwrap_or(u64::MAX)
    }

    fn index(&self, id: &Id) -> Option<usize> {
        self.ids.iter().position(|known| known == id)
    }
}

/// A `tracing` layer that records every span and event of the calls it
/// runs under; see [`record`].
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Recording>>);

impl Recorder {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recording> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The future `running` run with a subscriber of its own that records its
/// spans, and what it recorded once it finished.
pub(super) async fn record<T>(running: impl Future<Output = T>) -> (T, Vec<RecordedSpan>) {
    use tracing::instrument::WithSubscriber;
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let output = running.with_subscriber(subscriber).await;
    let spans = std::mem::take(&mut recorder.lock().spans);
    (output, spans)
}

/// The fields a waterfall shows of a span: its name and error.
#[derive(Default)]
struct Named {
    name: Option<String>,
    error: Option<String>,
}

impl Visit for Named {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "otel.name" => self.name = Some(value.to_owned()),
            "error.type" => self.error = Some(value.to_owned()),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "otel.name" => self.name = Some(format!("{value:?}")),
            "error.type" => self.error = Some(format!("{value:?}")),
            _ => {}
        }
    }
}

/// An event, as one line: its message, then its fields.
#[derive(Default)]
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            self.0.push_str(&format!("{value:?}"));
        } else {
            self.0.push_str(&format!("{}={value:?}", field.name()));
        }
    }
}

impl<S> tracing_subscriber::Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let now = Instant::now();
        let mut named = Named::default();
        attrs.record(&mut named);
        let parent = ctx
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.id());
        let mut recording = self.lock();
        if recording.spans.len() >= MAX_RECORDED {
            return;
        }
        let start_us = recording.micros(now);
        let parent = parent.and_then(|parent| recording.index(&parent));
        let index = recording.spans.len();
        recording.spans.push(RecordedSpan {
            id: index,
            parent,
            name: named
                .name
                .unwrap_or_else(|| attrs.metadata().name().to_owned()),
            start_us,
            end_us: None,
            error: named.error,
            events: Vec::new(),
        });
        recording.ids.push(id.clone());
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut named = Named::default();
        values.record(&mut named);
        let mut recording = self.lock();
        if let Some(index) = recording.index(id) {
            let span = &mut recording.spans[index];
            if let Some(name) = named.name {
                span.name = name;
            }
            if named.error.is_some() {
                span.error = named.error;
            }
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let now = Instant::now();
        let Some(span) = ctx.event_span(event) else {
            return;
        };
        let mut line = Line::default();
        event.record(&mut line);
        let mut recording = self.lock();
        let at_us = recording.micros(now);
        if let Some(index) = recording.index(&span.id())
            && recording.spans[index].events.len() < MAX_RECORDED
        {
            recording.spans[index].events.push(RecordedEvent {
                at_us,
                text: line.0,
            });
        }
    }

    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        let now = Instant::now();
        let mut recording = self.lock();
        let end_us = recording.micros(now);
        if let Some(index) = recording.index(&id) {
            recording.spans[index].end_us = Some(end_us);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Registry;

    #[tokio::test]
    async fn a_call_records_its_span_and_what_stopped_it() {
        let registry = Registry::new();
        let echo = crate::DynamicTool::new(
            crate::ToolDef::builder_owned("echo".to_owned(), "Echo.".to_owned()).build(),
            json!({ "type": "object", "properties": { "n": { "type": "integer" } } }),
            |args, _| async move { Ok(args) },
        );
        registry.register_dynamic(echo).expect("echo registers");

        let (result, spans) = record(registry.call("echo", json!({ "n": 1 }))).await;
        assert!(!result.is_error());
        let call = spans.first().expect("the call's span");
        assert_eq!(call.name, "execute_tool echo");
        assert_eq!(call.parent, None);
        assert!(call.end_us.is_some(), "{call:?}");
        assert!(call.error.is_none());
        assert!(
            spans.iter().skip(1).all(|span| span.parent.is_some()),
            "every other span lies in the call's: {spans:?}"
        );

        let (result, spans) = record(registry.call("echo", json!({ "n": "one" }))).await;
        assert!(result.is_error());
        let call = &spans[0];
        assert_eq!(call.error.as_deref(), Some("invalid_arguments"));
        let stopped = call
            .events
            .iter()
            .find(|event| event.text.starts_with("call stopped"))
            .expect("the event that says why");
        assert!(stopped.text.contains("/n"), "{stopped:?}");
    }
}
