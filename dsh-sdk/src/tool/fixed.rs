//! Definitions built two ways: fixed in a `const`, or given at run time.

use std::borrow::Cow;

/// Puts `value` in `slot` from a `const fn`, which cannot run the old value's
/// destructor. The builders that call it are `const` so that definitions can
/// be `const`; there the old value is `None`, borrowed or static, so
/// forgetting it leaks nothing.
pub(crate) const fn set<T>(slot: &mut T, value: T) {
    std::mem::forget(std::mem::replace(slot, value));
}

/// Strings fixed at compile time, or given at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StrList {
    Static(&'static [&'static str]),
    Owned(Vec<String>),
}

impl StrList {
    /// No strings.
    pub(crate) const EMPTY: StrList = StrList::Static(&[]);

    /// Strings given at run time.
    pub(crate) fn owned<I, S>(items: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        StrList::Owned(items.into_iter().map(Into::into).collect())
    }

    /// The strings as a slice: borrowed when they are fixed at compile
    /// time (nothing is allocated for them), else collected.
    pub(crate) fn as_strs(&self) -> Cow<'_, [&str]> {
        match self {
            StrList::Static(fixed) => Cow::Borrowed(fixed),
            StrList::Owned(owned) => Cow::Owned(owned.iter().map(String::as_str).collect()),
        }
    }

    /// The strings, in the order given.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let (fixed, owned): (&[&str], &[String]) = match self {
            StrList::Static(fixed) => (fixed, &[]),
            StrList::Owned(owned) => (&[], owned),
        };
        fixed
            .iter()
            .copied()
            .chain(owned.iter().map(String::as_str))
    }
}
