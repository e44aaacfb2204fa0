//! How rules, gates, guards and the approver combine.

use std::sync::Mutex;

use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use crate::tool::Exec;
use crate::value::principal::Principal;

const ALIASES: &[&str] = &["cat"];

fn call<'a>(tool: &'a str, aliases: &'a [&'a str], args: &'a Value) -> CallInfo<'a> {
    CallInfo {
        tool,
        aliases,
        args,
        read_only: false,
        destructive: false,
        requires_approval: false,
        principal: Principal::shared_host(),
    }
}

fn ask(prompt: &str) -> Decision {
    Decision::Ask {
        prompt: prompt.into(),
    }
}

fn deny(reason: &str) -> Decision {
    Decision::Deny {
        reason: reason.into(),
    }
}

#[test]
fn permission_matrix() {
    let etc = json!({ "path": "/etc/passwd" });
    let home = json!({ "path": "/home/ada/notes" });
    let no_path = json!({});
    // The canonical name first; then the same tool reported under the name
    // the model used, with the canonical one among the aliases.
    let as_called: &[&str] = &["read_file"];
    let calls = [("read_file", ALIASES), ("cat", as_called)];
    for effect in [Strictness::Allow, Strictness::Ask, Strictness::Deny] {
        for rule_name in ["read_file", "cat"] {
            for pattern in [None, Some("/etc/*")] {
                let mut rule = Rule::new(effect, rule_name);
                if let Some(pattern) = pattern {
                    rule = rule.when("path", pattern).unwrap();
                }
                let rules = Rules::default().with(rule.clone());
                for (tool, aliases) in calls {
                    for (args, arg_matches) in [(&etc, true), (&home, false), (&no_path, false)] {
                        let call = call(tool, aliases, args);
                        let applies = pattern.is_none() || arg_matches;
                        let got = rules.evaluate(&call);
                        let case = format!("{rule} on {tool} with {args}");
                        assert_eq!(got.is_some(), applies, "{case}");
                        if let Some(got) = got {
                            assert_eq!(got.strictness(), effect, "{case}");
                        }
                    }
                }
                let other = call("write_file", &[], &etc);
                assert_eq!(rules.evaluate(&other), None, "{rule} on write_file");
            }
        }
    }
}

#[test]
fn rule_texts_name_the_rule() {
    let args = json!({ "command": "rm -rf /", "cwd": "/tmp" });
    let call = call("bash", &[], &args);
    let rule = Rule::deny("bash").when("command", "rm *").unwrap();
    assert_eq!(
        Rules::default().with(rule).evaluate(&call),
        Some(deny("denied by rule `deny bash(command: rm *)`"))
    );
    let rule = Rule::ask("bash")
        .when("command", "rm *")
        .unwrap()
        .when("cwd", "/tmp*")
        .unwrap();
    assert_eq!(
        Rules::default().with(rule).evaluate(&call),
        Some(ask(
            "`bash` needs approval by rule `ask bash(command: rm *, cwd: /tmp*)`: allow it?"
        ))
    );
    assert_eq!(
        Rules::default().with(Rule::allow("bash")).evaluate(&call),
        Some(Decision::Allow)
    );
}

#[test]
fn all_conditions_must_hold() {
    let rule = Rule::deny("bash")
        .when("command", "rm *")
        .unwrap()
        .when("cwd", "/tmp*")
        .unwrap();
    let both = json!({ "command": "rm x", "cwd": "/tmp/a" });
    let one = json!({ "command": "rm x", "cwd": "/home" });
    assert!(rule.matches(&call("bash", &[], &both)));
    assert!(!rule.matches(&call("bash", &[], &one)));
}

#[test]
fn non_string_arguments_match_their_compact_json() {
    let args = json!({ "count": 42, "flags": ["-r", "-f"], "force": true, "none": null });
    let call = call("t", &[], &args);
    for (arg, pattern) in [
        ("count", "42"),
        ("flags", r#"["-r","-f"]"#),
        ("force", "true"),
        ("none", "null"),
    ] {
        let rule = Rule::deny("t")
            .when(arg, &crate::permission::escape(pattern))
            .unwrap();
        assert!(rule.matches(&call), "{rule}");
    }
    assert!(Rule::deny("t").when("count", "4*").unwrap().matches(&call));
    assert!(!Rule::deny("t").when("missing", "*").unwrap().matches(&call));
}

#[test]
fn arguments_that_are_not_an_object_never_match_a_condition() {
    let args = json!("rm -rf /");
    let rule = Rule::deny("bash").when("command", "*").unwrap();
    assert!(!rule.matches(&call("bash", &[], &args)));
}

#[test]
fn bad_glob_fails_when_building_the_rule() {
    assert!(Rule::deny("bash").when("command", "[").is_err());
    assert!(Rule::deny("bash").when("command", "***").is_err());
}

#[test]
fn deny_beats_ask_beats_allow() {
    let args = json!({ "path": "/etc/passwd" });
    let call = call("read_file", ALIASES, &args);
    let allow = Rule::allow("read_file");
    let ask_rule = Rule::ask("cat");
    let deny_rule = Rule::deny("read_file").when("path", "/etc/*").unwrap();
    let orders = [
        [allow.clone(), ask_rule.clone(), deny_rule.clone()],
        [deny_rule.clone(), ask_rule.clone(), allow.clone()],
        [ask_rule.clone(), deny_rule.clone(), allow.clone()],
    ];
    for order in orders {
        let rules: Rules = order.into_iter().collect();
        assert_eq!(
            rules.evaluate(&call),
            Some(deny("denied by rule `deny read_file(path: /etc/*)`"))
        );
    }
    let rules = Rules::default().with(allow.clone()).with(ask_rule.clone());
    assert_eq!(
        rules.evaluate(&call),
        Some(ask(
            "`read_file` needs approval by rule `ask cat`: allow it?"
        ))
    );
    let rules = Rules::default().with(allow);
    assert_eq!(rules.evaluate(&call), Some(Decision::Allow));
}

#[test]
fn first_of_equally_strict_rules_names_itself() {
    let args = json!({});
    let call = call("read_file", ALIASES, &args);
    let rules = Rules::default()
        .with(Rule::deny("cat"))
        .with(Rule::deny("read_file"));
    assert_eq!(
        rules.evaluate(&call),
        Some(deny("denied by rule `deny cat`"))
    );
}

#[test]
fn default_decisions() {
    let args = json!({});
    let plain = call("edit_file", &[], &args);
    assert_eq!(default_decision(&plain), Decision::Allow);
    let destructive = CallInfo {
        destructive: true,
        ..plain
    };
    assert_eq!(
        default_decision(&destructive),
        ask("`edit_file` may destroy data: allow it?")
    );
    let approval = CallInfo {
        requires_approval: true,
        ..plain
    };
    assert_eq!(
        default_decision(&approval),
        ask("`edit_file` requires approval: allow it?")
    );
    let both = CallInfo {
        requires_approval: true,
        ..destructive
    };
    assert_eq!(
        default_decision(&both),
        ask("`edit_file` may destroy data: allow it?")
    );
    let read_only = CallInfo {
        read_only: true,
        ..plain
    };
    assert_eq!(default_decision(&read_only), Decision::Allow);
}

#[test]
fn rules_replace_the_default() {
    let args = json!({ "path": "/etc/hosts" });
    let destructive = CallInfo {
        destructive: true,
        ..call("edit_file", &[], &args)
    };
    let none = Permissions::new();
    assert_eq!(
        none.decide(&destructive),
        ask("`edit_file` may destroy data: allow it?")
    );
    let allowed = Permissions::new().rule(Rule::allow("edit_file"));
    assert_eq!(allowed.decide(&destructive), Decision::Allow);
    let non_matching =
        Permissions::new().rule(Rule::allow("edit_file").when("path", "/tmp/*").unwrap());
    assert_eq!(
        non_matching.decide(&destructive),
        ask("`edit_file` may destroy data: allow it?")
    );
    let plain = call("edit_file", &[], &args);
    let denied = Permissions::new().rule(Rule::deny("edit_file"));
    assert_eq!(
        denied.decide(&plain),
        deny("denied by rule `deny edit_file`")
    );
}

#[test]
fn gates_run_in_order_and_combine_by_strictness() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let gate = |name: &'static str, decision: Decision| {
        let seen = Arc::clone(&seen);
        move |_: &CallInfo<'_>| {
            seen.lock().unwrap().push(name);
            decision.clone()
        }
    };
    let args = json!({});
    let call = call("bash", &[], &args);

    let permissions = Permissions::new()
        .gate(gate("allow", Decision::Allow))
        .gate(gate("ask 1", ask("first")))
        .gate(gate("allow again", Decision::Allow))
        .gate(gate("ask 2", ask("second")));
    assert_eq!(permissions.decide(&call), ask("first"));
    assert_eq!(
        *seen.lock().unwrap(),
        ["allow", "ask 1", "allow again", "ask 2"]
    );

    seen.lock().unwrap().clear();
    let permissions = Permissions::new()
        .gate(gate("ask", ask("first")))
        .gate(gate("deny", deny("no")))
        .gate(gate("after deny", Decision::Allow))
        .guard(|_: &CallInfo<'_>| -> Tighten { unreachable!("a deny is final") });
    assert_eq!(permissions.decide(&call), deny("no"));
    assert_eq!(*seen.lock().unwrap(), ["ask", "deny"]);
}

#[test]
fn gates_cannot_loosen_rules_or_defaults() {
    let args = json!({});
    let plain = call("bash", &[], &args);
    let always_allow = |_: &CallInfo<'_>| Decision::Allow;
    let denied = Permissions::new()
        .rule(Rule::deny("bash"))
        .gate(always_allow);
    assert_eq!(denied.decide(&plain), deny("denied by rule `deny bash`"));
    let asked = Permissions::new()
        .rule(Rule::ask("bash"))
        .gate(always_allow);
    assert_eq!(
        asked.decide(&plain),
        ask("`bash` needs approval by rule `ask bash`: allow it?")
    );
    let destructive = CallInfo {
        destructive: true,
        ..plain
    };
    assert_eq!(
        Permissions::new().gate(always_allow).decide(&destructive),
        ask("`bash` may destroy data: allow it?")
    );
}

#[test]
fn an_ask_the_layer_raises_carries_its_reason_and_a_gates_does_not() {
    let args = json!({});
    let plain = call("bash", &[], &args);
    let destructive = CallInfo {
        destructive: true,
        ..plain
    };
    let why = |permissions: &Permissions, call: &CallInfo<'_>| permissions.ruling(call).why;
    assert_eq!(
        why(&Permissions::new(), &destructive).as_deref(),
        Some("`bash` may destroy data")
    );
    let approval = CallInfo {
        requires_approval: true,
        ..plain
    };
    assert_eq!(
        why(&Permissions::new(), &approval).as_deref(),
        Some("`bash` requires approval")
    );
    let ruled = Permissions::new().rule(Rule::ask("bash"));
    assert_eq!(
        why(&ruled, &plain).as_deref(),
        Some("`bash` needs approval by rule `ask bash`")
    );
    // A gate's ask is its own words, even when they read like the layer's.
    let gated = Permissions::new().gate(|_: &CallInfo<'_>| ask("`bash` may run: allow it?"));
    assert_eq!(why(&gated, &plain), None);
    // On a tie the earlier ask stays, with its reason.
    assert_eq!(
        why(&gated, &destructive).as_deref(),
        Some("`bash` may destroy data")
    );
    // A stricter gate replaces the ask and its reason.
    let denied = Permissions::new().gate(|_: &CallInfo<'_>| deny("no"));
    assert_eq!(denied.ruling(&destructive).decision, deny("no"));
    assert_eq!(why(&denied, &destructive), None);
}

#[test]
fn plan_mode_denies_all_but_read_only_tools() {
    let args = json!({});
    let permissions = Permissions::new()
        .rule(Rule::allow("edit_file"))
        .guard(PlanMode);
    let edit = call("edit_file", &[], &args);
    assert_eq!(
        permissions.decide(&edit),
        deny("plan mode: `edit_file` is not read-only; only read-only tools run in plan mode")
    );
    let read = CallInfo {
        read_only: true,
        ..call("read_file", ALIASES, &args)
    };
    assert_eq!(permissions.decide(&read), Decision::Allow);
    let read_but_asked = Permissions::new().rule(Rule::ask("cat")).guard(PlanMode);
    assert_eq!(
        read_but_asked.decide(&read),
        ask("`read_file` needs approval by rule `ask cat`: allow it?")
    );
}

#[test]
fn guards_tighten_after_gates() {
    let args = json!({});
    let call = call("bash", &[], &args);
    let permissions = Permissions::new()
        .gate(|_: &CallInfo<'_>| ask("gate"))
        .guard(|_: &CallInfo<'_>| Tighten::Keep)
        .guard(|_: &CallInfo<'_>| Tighten::Ask {
            prompt: "guard".into(),
        });
    assert_eq!(permissions.decide(&call), ask("gate"));
    let permissions = permissions.guard(|_: &CallInfo<'_>| Tighten::Deny {
        reason: "guard".into(),
    });
    assert_eq!(permissions.decide(&call), deny("guard"));
}

#[test]
fn no_guard_can_loosen_a_decision() {
    let decisions = [Decision::Allow, ask("d"), deny("d")];
    let tightens = [
        Tighten::Keep,
        Tighten::Ask { prompt: "t".into() },
        Tighten::Deny { reason: "t".into() },
    ];
    for d in &decisions {
        for t in &tightens {
            let out = d.clone().tighten(t.clone());
            assert!(out.strictness() >= d.strictness(), "{d:?} by {t:?}");
            assert!(out.strictness() >= t.strictness(), "{d:?} by {t:?}");
            assert_eq!(
                out.strictness(),
                d.strictness().max(t.strictness()),
                "{d:?} by {t:?}"
            );
            if t.strictness() <= d.strictness() {
                assert_eq!(&out, d, "a tie keeps the decision's text");
            }
        }
    }
}

#[test]
fn strictness_orders_allow_ask_deny() {
    assert!(Strictness::Allow < Strictness::Ask);
    assert!(Strictness::Ask < Strictness::Deny);
}

#[tokio::test]
async fn fn_approver_answers() {
    let approver: Arc<dyn Approver> = Arc::new(FnApprover(|request: &ApprovalRequest<'_>| {
        if request.tool == "bash" {
            Approval::Reject {
                reason: format!("no: {}", request.prompt),
            }
        } else {
            Approval::ApproveWith(json!({ "path": "/tmp/safe" }))
        }
    }));
    let args = json!({});
    let exec = Exec::new("bash");
    let request = |tool| ApprovalRequest {
        tool,
        args: &args,
        prompt: "allow it?",
        invocation_id: Uuid::nil(),
        principal: exec.principal(),
        exec: &exec,
    };
    assert_eq!(
        approver.approve(request("bash")).await,
        Approval::Reject {
            reason: "no: allow it?".into()
        }
    );
    assert_eq!(
        approver.approve(request("edit_file")).await,
        Approval::ApproveWith(json!({ "path": "/tmp/safe" }))
    );
}

#[test]
fn rules_can_be_for_a_scope_or_a_subject() {
    let args = json!({ "path": "/etc/hosts" });
    let writer = Principal::new("ada").with_scopes(["files:write"]);
    let reader = Principal::new("bob").with_scopes(["files:read"]);
    let mallory = Principal::new("mallory").with_scopes(["files:write"]);
    let edit = |principal| CallInfo {
        destructive: true,
        principal,
        ..call("edit_file", &[], &args)
    };
    let permissions = Permissions::new()
        .rule(Rule::allow("edit_file").scope("files:write"))
        .rule(Rule::deny("edit_file").subject("mallory"));
    assert_eq!(permissions.decide(&edit(&writer)), Decision::Allow);
    // No rule is for bob: the default ask stands.
    assert_eq!(
        permissions.decide(&edit(&reader)),
        ask("`edit_file` may destroy data: allow it?")
    );
    assert_eq!(
        permissions.decide(&edit(&mallory)),
        deny("denied by rule `deny edit_file for subject mallory`")
    );
    // The host holds every scope, and is not mallory.
    assert_eq!(
        permissions.decide(&edit(Principal::shared_host())),
        Decision::Allow
    );
    let both = Rule::ask("edit_file")
        .when("path", "/etc/*")
        .unwrap()
        .subject("ada")
        .scope("files:write")
        .scope("admin");
    assert_eq!(
        both.to_string(),
        "ask edit_file(path: /etc/*) for subject ada with scope files:write, admin"
    );
    assert!(!both.matches(&edit(&writer)));
    let admin = writer.clone().with_scopes(["admin"]);
    assert!(both.matches(&edit(&admin)));
}

#[test]
fn a_caller_sees_the_tools_it_holds_the_scopes_of_and_no_rule_denies_outright() {
    let edit = crate::ToolDef::builder("edit_file", "Edit.")
        .scopes(&["files:write", "files:read"])
        .aliases(&["write"])
        .build();
    let bash = crate::ToolDef::builder("bash", "Run.").build();
    let half = Principal::new("ada").with_scopes(["files:write"]);
    let full = half.clone().with_scopes(["files:read"]);
    let none = Permissions::new();
    assert!(!none.shows(&edit, &half));
    assert!(none.shows(&edit, &full) && none.shows(&bash, &half));
    // Denied by an alias, whatever the arguments: hidden from those it is for.
    let denied = Permissions::new().rule(Rule::deny("write").scope("files:read"));
    assert!(!denied.shows(&edit, &full));
    // A deny that depends on the arguments hides nothing.
    let by_args = Permissions::new().rule(Rule::deny("bash").when("command", "rm *").unwrap());
    assert!(by_args.shows(&bash, &half));
    let everyone = Permissions::new().rule(Rule::deny("bash"));
    assert!(!everyone.shows(&bash, &half));
    // The host sees every tool, as before any principal existed.
    assert!(everyone.shows(&bash, Principal::shared_host()));
    assert!(none.shows(&edit, Principal::shared_host()));
}
