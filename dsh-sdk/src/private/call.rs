//! The futures `#[tool]`'s `execute` returns: the tool fn's own future,
//! its value mapped into the `Result` the `Tool` trait wants.
//!
//! Generic code shared by every tool, so that the macro emits no `async`
//! block of its own per tool: one state machine fewer to type-check, to
//! borrow-check and to compile, with its drop glue, for every tool.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use crate::tool::ToolError;
use crate::tool::{ToolOutput, ToolReturn};

pin_project_lite::pin_project! {
    /// A tool fn's future whose value is its output: `Ok` of it.
    pub struct Returns<F> {
        #[pin]
        inner: F,
    }
}

/// `Ok` of what `inner` yields, as the output the tool declares.
pub fn returns<F>(inner: F) -> Returns<F>
where
    F: Future,
    F::Output: ToolOutput,
{
    Returns { inner }
}

impl<F> Future for Returns<F>
where
    F: Future,
    F::Output: ToolOutput,
{
    type Output = Result<<F::Output as ToolOutput>::Checked, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let value = ready!(self.project().inner.poll(cx));
        Poll::Ready(Ok(value.into_checked()))
    }
}

pin_project_lite::pin_project! {
    /// A tool fn's future that may fail: its error converted by `convert`.
    pub struct Fallible<F, C> {
        #[pin]
        inner: F,
        convert: Option<C>,
    }
}

/// What `inner` yields, its value as the output the tool declares and its
/// error made a `ToolError` by `convert` (the conversion `#[tool]` picks by
/// the error's type).
pub fn fallible<F, C>(inner: F, convert: C) -> Fallible<F, C>
where
    F: Future,
    F::Output: ToolReturn,
    <F::Output as ToolReturn>::Output: ToolOutput,
    C: FnOnce(<F::Output as ToolReturn>::Error) -> ToolError,
{
    Fallible {
        inner,
        convert: Some(convert),
    }
}

impl<F, C> Future for Fallible<F, C>
where
    F: Future,
    F::Output: ToolReturn,
    <F::Output as ToolReturn>::Output: ToolOutput,
    C: FnOnce(<F::Output as ToolReturn>::Error) -> ToolError,
{
    type Output = Result<<<F::Output as ToolReturn>::Output as ToolOutput>::Checked, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = ready!(this.inner.poll(cx)).into_result();
        Poll::Ready(match result {
            Ok(value) => Ok(value.into_checked()),
            Err(error) => match this.convert.take() {
                Some(convert) => Err(convert(error)),
                // Polled again after it finished: a bug in the caller.
                None => Err(ToolError::new(
                    "internal: a tool's future was polled after it finished",
                )),
            },
        })
    }
}
