//! Every compile-time diagnostic of `#[tool]`, `#[render]`, `#[present]` and the derives,
//! and every form they accept.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for macro_name in ["tool", "render", "present", "derive", "elicit"] {
        t.pass(format!("tests/{macro_name}/pass/*.rs"));
        t.compile_fail(format!("tests/{macro_name}/fail/*.rs"));
    }
}
