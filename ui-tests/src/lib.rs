//! The trybuild cases of `#[tool]`, `#[render]` and `#[present]` live in
//! `tests/`; this crate has no code of its own. Run them with
//! `cargo test -p ui-tests`, and regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p ui-tests`.
