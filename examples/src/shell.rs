//! `bash`: a shell command with a timeout, cancellation, streamed output and
//! a `terminal` card, shown from the moment it starts.

use std::process::Stdio;
use std::time::Duration;

use dsh_kit::ToolPath;
use dsh_kit::card::TerminalCard;
use dsh_kit::prelude::*;
use tokio::io::{AsyncRead, AsyncReadExt};

/// How long a command may run when the call does not say.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// How much of each of stdout and stderr the value keeps; the rest is still
/// streamed, but dropped from the value so one noisy command cannot fill memory.
pub const MAX_CAPTURE_BYTES: usize = 1 << 20;

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// The command line, run with `sh -c`
    #[schemars(length(min = 1))]
    pub command: String,
    /// The directory to run it in, absolute or relative (default: the host's working directory)
    pub cwd: Option<ToolPath>,
    /// How long it may run, in milliseconds, before it is killed (default 30000)
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout_ms: Option<u64>,
}

/// What a command printed and how it ended.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CommandOutput {
    /// The command line that ran
    pub command: String,
    /// What it wrote to standard output
    pub stdout: String,
    /// What it wrote to standard error
    pub stderr: String,
    /// Its exit code; absent when it was killed (by a signal or the timeout)
    pub exit_code: Option<i32>,
    /// Whether it was killed for running past its timeout
    pub timed_out: bool,
}

/// Run a shell command with `sh -c` and return what it printed and its exit code.
#[tool(
    destructive,
    category = "shell",
    render = command_text,
    present = command_card,
    present_call = command_running
)]
pub async fn bash(args: BashArgs, exec: &Exec) -> Result<CommandOutput, ToolError> {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&args.command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A call that is dropped (cancelled, timed out by the host) kills the shell.
        .kill_on_drop(true);
    if let Some(cwd) = &args.cwd {
        command.current_dir(cwd);
    }
    let mut child = command
        .spawn()
        .map_err(|error| ToolError::new(format!("cannot start `sh -c`: {error}")))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(ToolError::new("the shell's output could not be captured"));
    };
    let limit = Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));

    let mut out = Vec::new();
    let mut err = Vec::new();
    let ended = {
        let run = async {
            let (out, err, status) = tokio::join!(
                pump(stdout, &mut out, |chunk| exec.stdout(chunk)),
                pump(stderr, &mut err, |chunk| exec.stderr(chunk)),
                child.wait(),
            );
            out.and(err).and(status)
        };
        tokio::select! {
            ended = tokio::time::timeout(limit, run) => ended.ok(),
            () = exec.cancellation().cancelled() => {
                return Err(ToolError::new("the command was cancelled"));
            }
        }
    };
    let status = match ended {
        Some(status) => Some(status.map_err(|error| {
            ToolError::new(format!("the command's output could not be read: {error}"))
        })?),
        None => {
            // Past its time: kill the shell (what it started may outlive it, as
            // after `timeout` in a terminal).
            let _ = child.kill().await;
            None
        }
    };
    Ok(CommandOutput {
        command: args.command,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        exit_code: status.and_then(|status| status.code()),
        timed_out: status.is_none(),
    })
}

/// Reads `reader` to its end, streaming each chunk as it comes and keeping up
/// to [`MAX_CAPTURE_BYTES`] of it in `kept`.
async fn pump(
    mut reader: impl AsyncRead + Unpin,
    kept: &mut Vec<u8>,
    send: impl Fn(String),
) -> std::io::Result<()> {
    let mut buffer = [0_u8; 8192];
    loop {
        let read = reader.read(&mut buffer).await?;
        if read == 0 {
            return Ok(());
        }
        let chunk = &buffer[..read];
        // A chunk may end inside a UTF-8 sequence; the stream is for watching,
        // and the value, decoded whole, is exact.
        send(String::from_utf8_lossy(chunk).into_owned());
        let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..read.min(room)]);
    }
}

/// stdout, then stderr, then how it ended: what a terminal would show.
#[render]
pub fn command_text(args: &BashArgs, output: &CommandOutput) -> Vec<ContentBlock> {
    let mut text = output.stdout.clone();
    if !output.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&output.stderr);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let ending = match (output.exit_code, output.timed_out) {
        (_, true) => format!(
            "[killed after {} ms: the command ran past its timeout]",
            args.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)
        ),
        (Some(code), false) => format!("[exit code {code}]"),
        (None, false) => "[killed by a signal]".to_owned(),
    };
    text.push_str(&ending);
    vec![ContentBlock::text(text)]
}

/// A `terminal` card of the finished command.
#[present]
pub fn command_card(_args: &BashArgs, output: &CommandOutput) -> Card {
    let card = TerminalCard::new(&output.command)
        .stdout(&output.stdout)
        .stderr(&output.stderr);
    Card::from(match output.exit_code {
        Some(code) => card.exit_code(code),
        None => card,
    })
}

/// A `terminal` card of the command alone, while it runs.
#[present]
pub fn command_running(args: &BashArgs) -> Card {
    Card::from(TerminalCard::new(&args.command))
}
