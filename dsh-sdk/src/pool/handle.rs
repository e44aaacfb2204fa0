//! [`ToolHandle`] and [`ScopedTool`]: what keeps a registered tool in the pool.

use std::fmt;
use std::sync::{PoisonError, Weak};

use super::Inner;

/// A registered tool: its name, and the way to unregister it.
///
/// Dropping the handle leaves the tool registered, for as long as the
/// registry lives: `registry.register::<greet>()?;` is the whole of
/// registering, and no way of ignoring the handle (`let _ = …`) takes the
/// tool away by accident. To take it away, call
/// [`unregister`](Self::unregister); to tie it to a scope, turn the handle
/// into a guard with [`scoped`](Self::scoped).
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Greet someone by name.
/// #[tool]
/// async fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// let _ = registry.register::<greet>();
/// assert!(registry.get("greet").is_some());
/// ```
pub struct ToolHandle {
    pub(super) registry: Weak<Inner>,
    pub(super) name: String,
    pub(super) id: u64,
}

impl ToolHandle {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lets go of the handle, leaving the tool registered: the same as
    /// dropping it, said out loud.
    pub fn keep(self) {}

    /// Unregisters the tool now. `false` if it was no longer registered (or
    /// its name now belongs to a tool registered since).
    pub fn unregister(self) -> bool {
        self.remove()
    }

    fn remove(&self) -> bool {
        let Some(inner) = self.registry.upgrade() else {
            return false;
        };
        let mut tools = inner.tools.write().unwrap_or_else(PoisonError::into_inner);
        let registered_here = tools
            .by_name
            .get(&self.name)
            .is_some_and(|entry| entry.id == self.id);
        if registered_here {
            tools.by_name.remove(&self.name);
            inner.search.remove(&self.name);
            tools.aliases.retain(|_, owner| *owner != self.name);
            drop(tools);
            inner.changed.send_replace(());
        }
        registered_here
    }

    /// A guard that unregisters the tool when it is dropped: a tool that
    /// lives exactly as long as a scope, a connection or a test.
    ///
    /// ```
    /// use dsh_kit::prelude::*;
    /// use dsh_kit::Registry;
    ///
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let registry = Registry::new();
    /// {
    ///     let _greet = registry.register::<greet>().unwrap().scoped();
    ///     assert!(registry.get("greet").is_some());
    /// }
    /// assert!(registry.get("greet").is_none());
    /// ```
    pub fn scoped(self) -> ScopedTool {
        ScopedTool(self)
    }
}

impl fmt::Debug for ScopedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ScopedTool").field(&self.0).finish()
    }
}

/// Keeps a tool registered until it is dropped: see [`ToolHandle::scoped`].
#[must_use = "dropping a `ScopedTool` unregisters the tool at once: bind it to a name"]
pub struct ScopedTool(ToolHandle);

impl ScopedTool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        self.0.name()
    }
}

impl Drop for ScopedTool {
    fn drop(&mut self) {
        self.0.remove();
    }
}

impl fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
