//! The traits `#[render]` and `#[present]` implement, and the checks `#[tool]` emits.
//!
//! `#[render] fn read_text(..)` keeps the fn as written and adds a zero-sized
//! type of the same name (types and fns live in different namespaces) that
//! implements [`RenderFn`]. `#[tool(render = read_text)]` then calls
//! `<read_text as RenderFn<Args, Output, Vec<ContentBlock>>>::call`, so a
//! render whose types do not match the tool fails to compile at the
//! `render = …` path.
//!
//! A `#[present]` fn taking only the args implements [`PresentCallFn`]
//! instead of [`PresentFn`]: `#[tool(present_call = …)]` names it.

/// A `#[render]` fn taking `&A` and `&O` and returning `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[render]` fn from `&{A}` and `&{O}` to `{R}`",
    label = "this render does not fit the tool",
    note = "a tool's render is `#[render] fn(&Args, &Output) -> Vec<ContentBlock>`, with the tool's own args and output types"
)]
pub trait RenderFn<A, O, R> {
    /// Calls the fn.
    fn call(args: &A, value: &O) -> R;
}

/// A `#[present]` fn taking `&A` and `&O` and returning `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[present]` fn from `&{A}` and `&{O}` to `{R}`",
    label = "this present does not fit the tool",
    note = "a tool's present is `#[present] fn(&Args, &Output) -> Card`, with the tool's own args and output types; a present of `&Args` alone is named by `present_call = …`"
)]
pub trait PresentFn<A, O, R> {
    /// Calls the fn.
    fn call(args: &A, value: &O) -> R;
}

/// A `#[present]` fn taking only `&A` and returning `R`: the card shown while
/// a call runs, named by `#[tool(present_call = …)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[present]` fn from `&{A}` alone to `{R}`",
    label = "this present does not fit `present_call`",
    note = "a tool's present_call is `#[present] fn(&Args) -> Card`, taking only the tool's own args: there is no output while the call runs"
)]
pub trait PresentCallFn<A, R> {
    /// Calls the fn.
    fn call(args: &A) -> R;
}

/// Implemented by the type `#[render]` adds beside its fn: `#[tool]` checks
/// `render = name` names one, so a fn that is not marked is told so.
#[diagnostic::on_unimplemented(
    message = "`render = …` names a fn that is not marked `#[render]`",
    label = "not a `#[render]` fn",
    note = "add `#[render]` above the fn: it checks the fn is pure and lets the tool call it"
)]
pub trait MarkedRender {
    /// Where `#[tool]` checks it, as `<T as MarkedRender>::CHECKED`.
    const CHECKED: () = ();
}

/// Implemented by the type `#[present]` adds beside its fn, as [`MarkedRender`].
#[diagnostic::on_unimplemented(
    message = "`present = …` names a fn that is not marked `#[present]`",
    label = "not a `#[present]` fn",
    note = "add `#[present]` above the fn: it checks the fn is pure and lets the tool call it"
)]
pub trait MarkedPresent {
    /// Where `#[tool]` checks it, as `<T as MarkedPresent>::CHECKED`.
    const CHECKED: () = ();
}

/// What `render = name` (or `present = name`) finds when no `#[render]`
/// type of that name exists, through a glob import `#[tool]` adds, which
/// the real type shadows: it fits every tool, so the one error is that it
/// is not marked.
pub struct Unmarked;

#[diagnostic::do_not_recommend]
impl<A, O, R> RenderFn<A, O, R> for Unmarked {
    fn call(_: &A, _: &O) -> R {
        unreachable!("an unmarked render is refused at compile time")
    }
}

#[diagnostic::do_not_recommend]
impl<A, O, R> PresentFn<A, O, R> for Unmarked {
    fn call(_: &A, _: &O) -> R {
        unreachable!("an unmarked present is refused at compile time")
    }
}

#[diagnostic::do_not_recommend]
impl<A, R> PresentCallFn<A, R> for Unmarked {
    fn call(_: &A) -> R {
        unreachable!("an unmarked present is refused at compile time")
    }
}
