//! What std and tokio offer that a pure fn does not use: the kinds of
//! impurity and what each says, the paths and macros that are one, and the
//! impure modules with the fns they export (which decides whether an
//! imported name is a module or a fn, and what a glob of one brings in).
//! One list, read by the body check (`purity`), the imports check
//! (`imported`) and the scope of `use`s around a fn (`scope`).

/// Something a pure fn does not do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Impurity {
    Unsafe,
    StaticMut,
    Fs,
    Net,
    Process,
    Env,
    Thread,
    Tokio,
    Clock,
    Rand,
    Print(&'static str),
    Dbg,
    Stdio,
    ThreadLocal,
    Static,
    Atomic,
    Address,
    HashOrder,
    RenamingUse,
}

impl Impurity {
    /// What it is, and how to do without it.
    pub(crate) fn describe(self) -> (String, &'static str) {
        const MOVE_IT: &str = "do it in the tool's body and put what is needed in its output";
        match self {
            Impurity::Unsafe => ("`unsafe`".into(), "remove the `unsafe` block"),
            Impurity::StaticMut => ("`static mut`".into(), "keep no state in it"),
            Impurity::Fs => ("file system access (`std::fs`)".into(), MOVE_IT),
            Impurity::Net => ("network access (`std::net`)".into(), MOVE_IT),
            Impurity::Process => ("process control (`std::process`)".into(), MOVE_IT),
            Impurity::Env => ("the environment (`std::env`)".into(), MOVE_IT),
            Impurity::Thread => (
                "threads (`std::thread`)".into(),
                "compute the result directly",
            ),
            Impurity::Tokio => ("`tokio`".into(), MOVE_IT),
            Impurity::Clock => (
                "the clock".into(),
                "take the time in the tool's body and put it in its output",
            ),
            Impurity::Rand => (
                "randomness".into(),
                "draw it in the tool's body and put it in its output",
            ),
            Impurity::Print(name) => (
                format!("`{name}!`"),
                "return what is to be seen instead of printing it",
            ),
            Impurity::Dbg => ("`dbg!`".into(), "remove it"),
            Impurity::Stdio => (
                "the standard streams (`std::io::stdout`, `stderr`, `stdin`)".into(),
                "return what is to be seen instead of writing it",
            ),
            Impurity::ThreadLocal => (
                "`thread_local!`".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Static => (
                "a `static` that can change".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Atomic => (
                "an atomic".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Address => (
                "a pointer's address (`{:p}`)".into(),
                "print what the value holds, not where it lives",
            ),
            Impurity::HashOrder => (
                "iteration over a `HashMap` or `HashSet`, whose order changes from one process to the next,".into(),
                "iterate a `BTreeMap` or `BTreeSet`, or sort first",
            ),
            Impurity::RenamingUse => (
                "a renaming `use`".into(),
                "name the item by its own path, so the check can see what it is",
            ),
        }
    }
}

/// The impurity a path names, by its segments: `std::fs::read`, `fs::read`
/// (after `use std::fs`), `tokio::…`, `rand::…`, `SystemTime::now`.
pub(crate) fn classify_path<S: AsRef<str>>(segments: &[S]) -> Option<Impurity> {
    let segments: Vec<&str> = segments.iter().map(AsRef::as_ref).collect();
    let module = |name: &str| match name {
        "fs" => Some(Impurity::Fs),
        "net" => Some(Impurity::Net),
        "process" => Some(Impurity::Process),
        "env" => Some(Impurity::Env),
        "thread" => Some(Impurity::Thread),
        _ => None,
    };
    match segments.as_slice() {
        // `std::env::consts::OS` and the like are compile-time constants.
        ["std" | "core", "env", "consts", ..] => None,
        [
            "std" | "core",
            "io",
            "stdout" | "stderr" | "stdin" | "Stdout" | "Stderr" | "Stdin",
            ..,
        ] => Some(Impurity::Stdio),
        ["std" | "core" | "alloc", "sync", "atomic", ..] => Some(Impurity::Atomic),
        // Only the memory orderings of atomics are named these.
        [
            ..,
            "Ordering",
            "Relaxed" | "SeqCst" | "Acquire" | "Release" | "AcqRel",
        ] => Some(Impurity::Atomic),
        // Plain values the impure modules define, which do nothing when
        // named: an address, a file's metadata, an exit status, a duration.
        [
            "std" | "core",
            "net",
            "IpAddr" | "Ipv4Addr" | "Ipv6Addr" | "SocketAddr" | "SocketAddrV4" | "SocketAddrV6"
            | "AddrParseError" | "Shutdown" | "Ipv6MulticastScope",
            ..,
        ]
        | [
            "std",
            "fs",
            "Metadata" | "Permissions" | "FileType" | "FileTimes",
            ..,
        ]
        | ["std", "process", "ExitStatus" | "ExitCode" | "Output", ..]
        | ["std", "env", "VarError", ..]
        | ["std", "thread", "ThreadId", ..]
        | ["tokio", "time", "Duration", ..] => None,
        ["std" | "core" | "alloc", second, ..] if module(second).is_some() => module(second),
        ["tokio", ..] => Some(Impurity::Tokio),
        ["rand" | "getrandom" | "fastrand", ..] => Some(Impurity::Rand),
        [.., "SystemTime" | "Instant" | "Utc" | "Local", "now"] => Some(Impurity::Clock),
        path if path.contains(&"thread_rng") => Some(Impurity::Rand),
        _ => None,
    }
}

/// The impure modules, by path, with the fns each exports: what tells a fn
/// imported by name (`use std::fs::read`) from a module (`use std::fs`), and
/// what a glob import (`use std::fs::*`) brings into scope. Whether a path
/// through one is impure is [`classify_path`]'s to say.
const MODULES: &[(&str, &[&str])] = &[
    (
        "std::fs",
        &[
            "canonicalize",
            "copy",
            "create_dir",
            "create_dir_all",
            "exists",
            "hard_link",
            "metadata",
            "read",
            "read_dir",
            "read_link",
            "read_to_string",
            "remove_dir",
            "remove_dir_all",
            "remove_file",
            "rename",
            "set_permissions",
            "soft_link",
            "symlink_metadata",
            "write",
        ],
    ),
    (
        "std::env",
        &[
            "args",
            "args_os",
            "current_dir",
            "current_exe",
            "home_dir",
            "join_paths",
            "remove_var",
            "set_current_dir",
            "set_var",
            "split_paths",
            "temp_dir",
            "var",
            "var_os",
            "vars",
            "vars_os",
        ],
    ),
    ("std::process", &["abort", "exit", "id"]),
    (
        "std::thread",
        &[
            "available_parallelism",
            "current",
            "park",
            "park_timeout",
            "scope",
            "sleep",
            "sleep_until",
            "spawn",
            "yield_now",
        ],
    ),
    ("std::net", &[]),
    ("std::io", &["stdin", "stdout", "stderr"]),
    ("std::time", &[]),
    ("std::sync::atomic", &["fence", "compiler_fence"]),
    ("tokio", &["spawn"]),
    (
        "tokio::fs",
        &[
            "canonicalize",
            "copy",
            "create_dir",
            "create_dir_all",
            "hard_link",
            "metadata",
            "read",
            "read_dir",
            "read_link",
            "read_to_string",
            "remove_dir",
            "remove_dir_all",
            "remove_file",
            "rename",
            "set_permissions",
            "symlink_metadata",
            "try_exists",
            "write",
        ],
    ),
    ("tokio::net", &["lookup_host"]),
    ("tokio::process", &[]),
    (
        "tokio::time",
        &[
            "interval",
            "interval_at",
            "sleep",
            "sleep_until",
            "timeout",
            "timeout_at",
        ],
    ),
    (
        "tokio::task",
        &[
            "block_in_place",
            "spawn",
            "spawn_blocking",
            "spawn_local",
            "yield_now",
        ],
    ),
    ("tokio::io", &["stdin", "stdout", "stderr"]),
    ("tokio::signal", &["ctrl_c"]),
    ("rand", &["random", "random_range", "rng", "thread_rng"]),
];

/// What a path names, as far as [`MODULES`] tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModuleKind {
    /// One of the modules, or a crate: `std::fs`, `tokio`.
    Module,
    /// A fn one of them exports: `std::fs::read`.
    Fn,
    /// A type, by its capital: `std::fs::File`.
    Type,
    /// Anything else, which may be either a module or a fn.
    Unknown,
}

/// What `path` names: a module, a fn or a type.
pub(crate) fn module_kind<S: AsRef<str>>(path: &[S]) -> ModuleKind {
    let segments: Vec<&str> = path.iter().map(AsRef::as_ref).collect();
    let Some((last, parent)) = segments.split_last() else {
        return ModuleKind::Unknown;
    };
    let joined = segments.join("::");
    let parent = parent.join("::");
    if parent.is_empty() || MODULES.iter().any(|(module, _)| *module == joined) {
        ModuleKind::Module
    } else if MODULES
        .iter()
        .any(|(module, fns)| *module == parent && fns.contains(last))
    {
        ModuleKind::Fn
    } else if last.starts_with(char::is_uppercase) {
        ModuleKind::Type
    } else {
        ModuleKind::Unknown
    }
}

/// The impurity a macro is, by its name.
pub(crate) fn classify_macro(name: &str) -> Option<Impurity> {
    match name {
        "println" => Some(Impurity::Print("println")),
        "print" => Some(Impurity::Print("print")),
        "eprintln" => Some(Impurity::Print("eprintln")),
        "eprint" => Some(Impurity::Print("eprint")),
        "dbg" => Some(Impurity::Dbg),
        "thread_local" => Some(Impurity::ThreadLocal),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{Impurity, classify_macro, classify_path};

    fn path(path: &str) -> Option<Impurity> {
        let segments: Vec<&str> = path.split("::").collect();
        classify_path(&segments)
    }

    #[test]
    fn flags_io_through_std() {
        assert_eq!(path("std::fs::read_to_string"), Some(Impurity::Fs));
        assert_eq!(
            path("fs::read"),
            None,
            "a module of the crate's own may be named `fs`"
        );
        assert_eq!(path("std::net::TcpStream"), Some(Impurity::Net));
        assert_eq!(path("std::process::Command"), Some(Impurity::Process));
        assert_eq!(path("std::env::var"), Some(Impurity::Env));
        assert_eq!(path("std::env::consts::OS"), None, "a constant");
        assert_eq!(path("std::io::stdout"), Some(Impurity::Stdio));
        assert_eq!(path("std::sync::atomic::AtomicU32"), Some(Impurity::Atomic));
        assert_eq!(path("Ordering::SeqCst"), Some(Impurity::Atomic));
        assert_eq!(path("Ordering::Less"), None);
        assert_eq!(path("std::thread::sleep"), Some(Impurity::Thread));
        assert_eq!(path("tokio::fs::read"), Some(Impurity::Tokio));
    }

    #[test]
    fn flags_clocks_and_randomness() {
        assert_eq!(path("SystemTime::now"), Some(Impurity::Clock));
        assert_eq!(path("std::time::Instant::now"), Some(Impurity::Clock));
        assert_eq!(path("chrono::Utc::now"), Some(Impurity::Clock));
        assert_eq!(path("rand::random"), Some(Impurity::Rand));
        assert_eq!(path("thread_rng"), Some(Impurity::Rand));
    }

    #[test]
    fn passes_pure_paths() {
        for pure in [
            "std::fmt::Write",
            "String::new",
            "fs",
            "env",
            "std::time::Duration",
            "Instant",
            "my::env",
            "std::net::IpAddr::V4",
            "core::net::Ipv4Addr::new",
            "std::fs::Metadata",
            "std::process::ExitCode::SUCCESS",
            "tokio::time::Duration::from_secs",
        ] {
            assert_eq!(path(pure), None, "{pure}");
        }
    }

    #[test]
    fn flags_printing_macros() {
        assert_eq!(classify_macro("println"), Some(Impurity::Print("println")));
        assert_eq!(classify_macro("dbg"), Some(Impurity::Dbg));
        assert_eq!(classify_macro("format"), None);
        assert_eq!(classify_macro("thread_local"), Some(Impurity::ThreadLocal));
    }
}
