//! [`Limits`]: the bounds a program runs within.

use std::time::Duration;

/// The bounds a program runs within; each, when passed, ends the program
/// with its own [`CodeError`](super::CodeError).
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::code::Limits;
///
/// let limits = Limits::default().timeout(Duration::from_secs(2)).max_calls(50);
/// assert_eq!(limits.calls(), 50);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    timeout: Duration,
    max_memory_bytes: usize,
    max_stack_bytes: usize,
    max_output_chars: usize,
    max_calls: usize,
    max_program_chars: usize,
}

impl Default for Limits {
    /// 10 seconds, 64 MiB of memory, 512 KiB of stack, 100,000 characters
    /// of output, 200 tool calls, a program of 100,000 characters.
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_memory_bytes: 64 * 1024 * 1024,
            max_stack_bytes: 512 * 1024,
            max_output_chars: 100_000,
            max_calls: 200,
            max_program_chars: 100_000,
        }
    }
}

impl Limits {
    /// The wall time of the whole run, tool calls included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The memory the engine may allocate, in bytes.
    pub fn max_memory_bytes(mut self, bytes: usize) -> Self {
        self.max_memory_bytes = bytes;
        self
    }

    /// The stack the engine may use, in bytes: how deep a program recurses.
    pub fn max_stack_bytes(mut self, bytes: usize) -> Self {
        self.max_stack_bytes = bytes;
        self
    }

    /// The characters `console.log` may print and the result may take, together.
    pub fn max_output_chars(mut self, chars: usize) -> Self {
        self.max_output_chars = chars;
        self
    }

    /// The tool calls a program may make.
    pub fn max_calls(mut self, calls: usize) -> Self {
        self.max_calls = calls;
        self
    }

    /// The characters a program may have.
    pub fn max_program_chars(mut self, chars: usize) -> Self {
        self.max_program_chars = chars;
        self
    }
}

impl Limits {
    /// See [`timeout`](Self::timeout).
    pub fn time(&self) -> Duration {
        self.timeout
    }

    /// See [`max_memory_bytes`](Self::max_memory_bytes).
    pub fn memory_bytes(&self) -> usize {
        self.max_memory_bytes
    }

    /// See [`max_stack_bytes`](Self::max_stack_bytes).
    pub fn stack_bytes(&self) -> usize {
        self.max_stack_bytes
    }

    /// See [`max_output_chars`](Self::max_output_chars).
    pub fn output_chars(&self) -> usize {
        self.max_output_chars
    }

    /// See [`max_calls`](Self::max_calls).
    pub fn calls(&self) -> usize {
        self.max_calls
    }

    /// See [`max_program_chars`](Self::max_program_chars).
    pub fn program_chars(&self) -> usize {
        self.max_program_chars
    }
}
