//! Tool search over 1,000 and 10,000 generated tools with realistic names,
//! descriptions and parameters: how long the index takes to build, how long
//! a query takes, and how long adding or removing one tool takes against
//! rebuilding the index (criterion's medians, then the p50/p99 of 2,000 timed
//! queries, 2,000 timed misspelt queries and 2,000 timed updates, printed
//! after the criterion groups).
//!
//! On Linux each figure also comes as time on the CPU (the thread's own, from
//! `/proc/thread-self/schedstat`), which a loaded machine does not inflate.
//!
//! Run with `cargo bench -p dsh-kit --bench search`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use dsh_kit::DynamicTool;
use dsh_kit::search::ToolIndex;
use dsh_kit::{Registry, ToolDef, ToolInfo};
use serde_json::{Value, json};

const VERBS: [(&str, &str); 10] = [
    ("get", "Fetch one"),
    ("list", "List every"),
    ("create", "Create a new"),
    ("update", "Change the fields of a"),
    ("delete", "Permanently delete a"),
    ("search", "Full-text search for a"),
    ("export", "Export as CSV each"),
    ("archive", "Archive a finished"),
    ("assign", "Assign to a teammate a"),
    ("comment", "Add a comment to a"),
];

const THINGS: [(&str, &str); 20] = [
    (
        "invoice",
        "billing document sent to a client with line items and taxes",
    ),
    (
        "customer",
        "person or company that buys from you, with contact details",
    ),
    (
        "order",
        "purchase with items, quantities, shipping address and status",
    ),
    (
        "ticket",
        "support request from a user with priority and assignee",
    ),
    (
        "repository",
        "source code repository with branches and pull requests",
    ),
    (
        "calendar_event",
        "meeting with a title, start time, end time and attendees",
    ),
    (
        "email",
        "message in a mailbox with subject, sender and attachments",
    ),
    (
        "file",
        "document stored in a drive folder with sharing permissions",
    ),
    (
        "payment",
        "card or bank transfer with amount, currency and refund state",
    ),
    (
        "shipment",
        "parcel with a carrier, tracking number and delivery date",
    ),
    (
        "employee",
        "staff member with role, department, manager and salary",
    ),
    (
        "report",
        "dashboard chart or table computed from metrics over a period",
    ),
    (
        "contact",
        "address book entry with phone numbers and email addresses",
    ),
    (
        "deal",
        "sales opportunity with stage, value and expected close date",
    ),
    ("task", "to-do item with a due date, checklist and project"),
    (
        "alert",
        "monitoring alarm raised when a metric crosses a threshold",
    ),
    (
        "label",
        "tag used to group issues, pull requests or messages",
    ),
    ("webhook", "HTTP callback subscribed to events of a service"),
    (
        "product",
        "catalog item with price, stock level and variants",
    ),
    (
        "subscription",
        "recurring plan a customer pays for monthly or yearly",
    ),
];

const PROVIDERS: [&str; 50] = [
    "stripe",
    "github",
    "gitlab",
    "jira",
    "linear",
    "asana",
    "trello",
    "notion",
    "slack",
    "discord",
    "gmail",
    "outlook",
    "gcal",
    "zoom",
    "hubspot",
    "salesforce",
    "zendesk",
    "intercom",
    "shopify",
    "woocommerce",
    "quickbooks",
    "xero",
    "paypal",
    "square",
    "dropbox",
    "gdrive",
    "onedrive",
    "box",
    "airtable",
    "monday",
    "clickup",
    "pagerduty",
    "datadog",
    "sentry",
    "grafana",
    "okta",
    "workday",
    "bamboohr",
    "greenhouse",
    "lever",
    "mailchimp",
    "sendgrid",
    "twilio",
    "ups",
    "fedex",
    "dhl",
    "figma",
    "miro",
    "confluence",
    "bitbucket",
];

/// A registry of `providers × 200` deferred tools, and one more tool outside it.
fn tools(providers: usize) -> (Registry, ToolInfo) {
    let registry = Registry::new();
    for provider in &PROVIDERS[..providers] {
        for (verb, verb_text) in VERBS {
            for (thing, thing_text) in THINGS {
                registry
                    .register_dynamic(tool(provider, verb, verb_text, thing, thing_text))
                    .expect("a generated tool");
            }
        }
    }
    let spare = Registry::new();
    spare
        .register_dynamic(tool(
            "pipedrive",
            "merge",
            "Merge two duplicates of a",
            "contact",
            "person with phone numbers",
        ))
        .expect("a generated tool");
    let extra = spare.tools().remove(0);
    (registry, extra)
}

fn tool(provider: &str, verb: &str, verb_text: &str, thing: &str, thing_text: &str) -> DynamicTool {
    let name = format!("{provider}_{verb}_{thing}");
    let description = format!(
        "{verb_text} {} in {provider}: a {thing_text}.",
        thing.replace('_', " ")
    );
    let schema = json!({
        "type": "object",
        "properties": {
            format!("{thing}_id"): { "type": "string", "description": format!("The {provider} id of the {}", thing.replace('_', " ")) },
            "fields": { "type": "array", "items": { "type": "string" }, "description": "Which fields to return" },
            "limit": { "type": "integer", "minimum": 1, "description": "At most this many results" }
        }
    });
    DynamicTool::new(
        ToolDef::builder_owned(name, description)
            .defer(true)
            .build(),
        schema,
        |_args: Value, _exec| async { Ok(Value::Null) },
    )
}

/// The same requests typed in a hurry: each has words no tool holds, which
/// look for the terms one edit away.
const MISSPELT: [&str; 8] = [
    "refnud a card paymnet in stirpe",
    "find the trackign numbr of a parcle",
    "invte atendees to a meetnig next tuesday",
    "which pull reqeusts are open in the repsitory",
    "raise the salray of an employe",
    "exprot all invioces as csv",
    "page the on-call enginer about an alret",
    "add a tag to an isue",
];

const QUERIES: [&str; 8] = [
    "refund a card payment in stripe",
    "find the tracking number of a parcel",
    "invite attendees to a meeting next tuesday",
    "which pull requests are open in the repository",
    "raise the salary of an employee",
    "export all invoices as csv",
    "page the on-call engineer about an alert",
    "add a tag to an issue",
];

/// How long this thread has run on a CPU, where the system says (Linux).
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// The time on the CPU `run` takes, averaged over `rounds`, as text.
fn cpu_per_round(rounds: u32, mut run: impl FnMut()) -> String {
    let before = cpu_time();
    for _ in 0..rounds {
        run();
    }
    match (before, cpu_time()) {
        (Some(before), Some(after)) => format!("{:?}", (after - before) / rounds),
        _ => "n/a".to_owned(),
    }
}

/// The median and 99th percentile of 2,000 searches, `queries` in turn.
fn query_percentiles(index: &ToolIndex, queries: &[&str]) -> (Duration, Duration) {
    percentiles(
        (0..2_000)
            .map(|i| {
                let started = Instant::now();
                black_box(index.search(queries[i % queries.len()], 5));
                started.elapsed()
            })
            .collect(),
    )
}

fn percentiles(mut timings: Vec<Duration>) -> (Duration, Duration) {
    timings.sort_unstable();
    (
        timings[timings.len() / 2],
        timings[timings.len() * 99 / 100],
    )
}

fn bench_size(c: &mut Criterion, providers: usize) {
    let (registry, extra) = tools(providers);
    let infos: Vec<ToolInfo> = registry.tools();
    let size = infos.len();
    assert_eq!(size, providers * 200);

    let mut group = c.benchmark_group(format!("tool_search_{size}"));
    group.sample_size(10);
    group.bench_function("build_index", |b| {
        b.iter(|| black_box(ToolIndex::build(&infos)))
    });
    let mut index = ToolIndex::build(&infos);
    group.sample_size(100);
    group.bench_function("query", |b| {
        let mut next = 0;
        b.iter(|| {
            next = (next + 1) % QUERIES.len();
            black_box(index.search(QUERIES[next], 5))
        });
    });
    group.bench_function("add_and_remove_one_tool", |b| {
        b.iter(|| {
            index.insert(extra.clone());
            black_box(index.remove(extra.name()))
        })
    });
    group.finish();

    let started = Instant::now();
    let rounds = 5;
    for _ in 0..rounds {
        black_box(ToolIndex::build(&infos));
    }
    let build = started.elapsed() / rounds;
    let build_cpu = cpu_per_round(rounds, || {
        black_box(ToolIndex::build(&infos));
    });
    let (query_p50, query_p99) = query_percentiles(&index, &QUERIES);
    let (misspelt_p50, misspelt_p99) = query_percentiles(&index, &MISSPELT);
    let mut next = 0;
    let query_cpu = cpu_per_round(2_000, || {
        next = (next + 1) % QUERIES.len();
        black_box(index.search(QUERIES[next], 5));
    });
    let update_cpu = cpu_per_round(2_000, || {
        index.insert(extra.clone());
        black_box(index.remove(extra.name()));
    });
    let mut adds = Vec::with_capacity(2_000);
    let mut removes = Vec::with_capacity(2_000);
    for _ in 0..2_000 {
        let started = Instant::now();
        index.insert(extra.clone());
        adds.push(started.elapsed());
        let started = Instant::now();
        black_box(index.remove(extra.name()));
        removes.push(started.elapsed());
    }
    let (add_p50, add_p99) = percentiles(adds);
    let (remove_p50, remove_p99) = percentiles(removes);
    println!(
        "tool_search_{size}: build {build:?}; query p50 {query_p50:?}, p99 {query_p99:?}; \
         misspelt query p50 {misspelt_p50:?}, p99 {misspelt_p99:?}; add one tool p50 {add_p50:?}, p99 {add_p99:?}; remove one tool p50 {remove_p50:?}, \
         p99 {remove_p99:?}; a rebuild costs {:.0}x an add",
        build.as_secs_f64() / add_p50.as_secs_f64().max(1e-9)
    );
    println!(
        "tool_search_{size} on the CPU: build {build_cpu}; query mean {query_cpu}; \
         add and remove one tool mean {update_cpu}"
    );
}

fn bench(c: &mut Criterion) {
    bench_size(c, 5);
    bench_size(c, 50);
}

criterion_group!(benches, bench);
criterion_main!(benches);
