//! Locks that outlive a panic: the state they guard is kept consistent by
//! each critical section, so a panic elsewhere, a tool's or a hook's, must
//! not make every later call fail on a poisoned lock.

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Reads `lock`, poisoned or not.
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Writes `lock`, poisoned or not.
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::RwLock;

    use super::{read, write};

    #[test]
    fn a_poisoned_lock_still_reads_and_writes() {
        let lock = RwLock::new(1);
        let panicked = catch_unwind(AssertUnwindSafe(|| {
            let _guard = write(&lock);
            panic!("a tool fault");
        }));
        assert!(panicked.is_err() && lock.is_poisoned());
        *write(&lock) += 1;
        assert_eq!(*read(&lock), 2);
    }
}
