//! The naming rules dsh-kit checks at run time and dsh-kit-macros at compile
//! time, in one place both depend on: what a tool, an HTTP header, an OAuth
//! scope and a `_meta` key may be called, how categories and output types
//! are spelt, and which misspelt name is close to which.
//!
//! A proc-macro crate cannot depend on the library it serves, so the rules
//! live here, below both. This crate is an implementation detail of dsh-kit:
//! use dsh-kit, which says the same rules in its errors. Its API follows
//! dsh-kit's releases, not semantic versioning of its own.

pub mod names;
pub mod suggest;
