//! Unified diffs for the edit tool, and the hunks a `diff` card carries.

use dsh_kit::card::DiffHunk;
use similar::TextDiff;

/// The change from `before` to `after` as a unified diff with 3 lines of context.
pub fn unified(path: &str, before: &str, after: &str) -> String {
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(path, path)
        .to_string()
}

/// The hunks of a unified diff: each `@@ -a,b +c,d @@` header with its lines.
///
/// Lines before the first header (the `---`/`+++` file names) are skipped; a
/// header whose counts are left out means one line, as `diff` writes it.
pub fn hunks(diff: &str) -> Vec<DiffHunk> {
    let mut hunks: Vec<DiffHunk> = Vec::new();
    for line in diff.lines() {
        if let Some(hunk) = parse_header(line) {
            hunks.push(hunk);
        } else if let Some(hunk) = hunks.last_mut()
            && line.starts_with([' ', '-', '+'])
        {
            hunk.lines.push(line.to_owned());
        }
    }
    hunks
}

fn parse_header(line: &str) -> Option<DiffHunk> {
    let ranges = line.strip_prefix("@@ -")?.split(" @@").next()?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_lines) = parse_range(old)?;
    let (new_start, new_lines) = parse_range(new)?;
    Some(DiffHunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines: Vec::new(),
    })
}

fn parse_range(range: &str) -> Option<(u32, u32)> {
    match range.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_match_the_unified_diff() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n";
        let diff = unified("x.txt", before, after);
        assert!(
            diff.starts_with("--- x.txt\n+++ x.txt\n@@ -2,7 +2,7 @@\n"),
            "{diff}"
        );
        let hunks = hunks(&diff);
        assert_eq!(hunks.len(), 1);
        let hunk = &hunks[0];
        assert_eq!(
            (
                hunk.old_start,
                hunk.old_lines,
                hunk.new_start,
                hunk.new_lines
            ),
            (2, 7, 2, 7)
        );
        assert_eq!(hunk.lines, [" b", " c", " d", "-e", "+E", " f", " g", " h"]);
    }

    #[test]
    fn a_header_without_counts_means_one_line() {
        let hunks = hunks("@@ -3 +3 @@\n-x\n+y\n");
        assert_eq!((hunks[0].old_lines, hunks[0].new_lines), (1, 1));
        assert_eq!(hunks[0].lines, ["-x", "+y"]);
    }
}
