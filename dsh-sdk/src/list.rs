//! Lists of strings in definitions built two ways: fixed in a `const`, or
//! given at run time.

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

    /// Replaces the list with `items` in a `const fn`, which cannot run the
    /// old list's destructor: in every const-built value the old list is
    /// static, so forgetting it leaks nothing.
    pub(crate) const fn set_static(&mut self, items: &'static [&'static str]) {
        std::mem::forget(std::mem::replace(self, StrList::Static(items)));
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
