//! Skills beside a registry's tools: declared in code, and loaded from a
//! directory of `SKILL.md` files, hostile ones included.

use std::fs;
use std::path::Path;

use dsh_kit::Registry;
use dsh_kit::skill::{
    self, FrontMatterError, LoadProblem, MAX_SKILL_BYTES, Skill, SkillError, SkillSource,
};
use serde_json::json;

fn write(path: &Path, contents: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

const REFUNDS: &str = "---\nname: refunds\ndescription: Process refund requests per policy\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n---\n\n# Refunds\n\nSee `examples/email.md`.\n";

#[test]
fn a_skill_declared_in_code_has_a_skill_md_and_a_manifest() {
    let skill = Skill::new("release-notes", "Write release notes", "# Notes\n")
        .unwrap()
        .field("license", "MIT")
        .unwrap()
        .file("TEMPLATE.md", "## Added\n")
        .unwrap()
        .prefix("acme/docs")
        .unwrap();
    assert_eq!(skill.uri(), "skill://acme/docs/release-notes/SKILL.md");
    let markdown = std::str::from_utf8(skill.contents("SKILL.md").unwrap()).unwrap();
    assert_eq!(
        markdown,
        "---\nname: release-notes\ndescription: Write release notes\nlicense: MIT\n---\n\n# Notes\n"
    );
    let entry = skill.entry();
    assert_eq!(entry.front_matter["license"], json!("MIT"));
    let files = entry.files.unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].uri, "skill://acme/docs/release-notes/SKILL.md");
    assert_eq!(files[0].size, markdown.len() as u64);
    assert_eq!(files[0].digest, skill::sha256_digest(markdown.as_bytes()));
    assert_eq!(files[1].uri, "skill://acme/docs/release-notes/TEMPLATE.md");

    let registry = Registry::builder().skill(skill).build();
    assert_eq!(registry.skills().len(), 1);
    assert!(
        registry
            .skills()
            .get("skill://acme/docs/release-notes/SKILL.md")
            .is_some()
    );
}

#[test]
fn declared_skills_refuse_what_hosts_would_not_load() {
    assert_eq!(
        Skill::new("Release_Notes", "x", "").unwrap_err(),
        SkillError::Name("Release_Notes".into())
    );
    assert!(matches!(
        Skill::new("a", "", ""),
        Err(SkillError::Description { chars: 0, .. })
    ));
    let skill = Skill::new("a", "b", "").unwrap();
    assert!(matches!(
        skill.clone().file("../etc/passwd", "x"),
        Err(SkillError::FilePath { .. })
    ));
    assert!(matches!(
        skill.clone().file("SKILL.md", "x"),
        Err(SkillError::DuplicateFile { .. })
    ));
    assert_eq!(
        skill.clone().field("name", "b").unwrap_err(),
        SkillError::ReservedField("name".into())
    );
    assert!(matches!(
        skill
            .clone()
            .file("big.bin", vec![0; MAX_SKILL_BYTES as usize]),
        Err(SkillError::TooLarge { .. })
    ));
    assert_eq!(
        skill.prefix("a b").unwrap_err(),
        SkillError::Prefix("a b".into())
    );
}

#[test]
fn a_skill_from_markdown_keeps_its_bytes_and_front_matter() {
    let skill = Skill::from_markdown(REFUNDS).unwrap();
    assert_eq!(skill.contents("SKILL.md").unwrap(), REFUNDS.as_bytes());
    assert_eq!(
        skill.front_matter()["metadata"],
        json!({ "version": "2.1" })
    );
    assert_eq!(
        Skill::from_markdown("# Refunds").unwrap_err(),
        SkillError::FrontMatter(FrontMatterError::Missing)
    );
}

#[tokio::test]
async fn a_skill_reads_its_own_files_and_no_other() {
    let skill = Skill::new("a", "b", "body")
        .unwrap()
        .file("dir/c d.txt", "cd")
        .unwrap();
    let read = skill
        .read("skill://a/dir/c%20d.txt")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&*read.bytes, b"cd");
    assert_eq!(read.mime_type, "text/plain");
    let read = skill.read("skill://a/SKILL.md").await.unwrap().unwrap();
    assert_eq!(read.mime_type, "text/markdown");
    assert!(skill.read("skill://a/dir/other.txt").await.is_none());
    assert!(skill.read("skill://ab/SKILL.md").await.is_none());
}

#[test]
fn a_directory_of_skills_loads_each_at_its_path() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("acme/billing/refunds/SKILL.md"), REFUNDS);
    write(
        &dir.path().join("acme/billing/refunds/examples/email.md"),
        "Dear customer,\n",
    );
    write(
        &dir.path().join("git-workflow/SKILL.md"),
        "---\nname: git-workflow\ndescription: Branch and commit the team's way\n---\nUse short branches.\n",
    );
    write(&dir.path().join("git-workflow/.hidden"), "left out");
    write(&dir.path().join("notes/README.md"), "not a skill");
    let skills = skill::load_dir(dir.path()).unwrap();
    let uris: Vec<String> = skills.iter().map(Skill::uri).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md"
        ]
    );
    assert_eq!(
        skills[0].paths().collect::<Vec<_>>(),
        ["SKILL.md", "examples/email.md"]
    );
    assert_eq!(skills[0].contents("SKILL.md").unwrap(), REFUNDS.as_bytes());
    assert_eq!(skills[1].paths().collect::<Vec<_>>(), ["SKILL.md"]);
}

#[test]
fn malformed_front_matter_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken/SKILL.md");
    write(&path, "---\nname: broken\ndescription: [unclosed\n---\n");
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert_eq!(error.path, path);
    assert!(matches!(
        error.problem,
        LoadProblem::Skill(SkillError::FrontMatter(FrontMatterError::Yaml(_)))
    ));
    assert!(
        error.to_string().starts_with(&format!(
            "{}: the front matter of `SKILL.md` does not read",
            path.display()
        )),
        "{error}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other/SKILL.md");
    write(&path, "---\nname: refunds\ndescription: x\n---\n");
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert_eq!(error.path, path);
    assert!(
        matches!(error.problem, LoadProblem::NameMismatch { .. }),
        "{error}"
    );
}

#[test]
fn an_oversize_skill_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("big/SKILL.md"),
        "---\nname: big\ndescription: x\n---\n",
    );
    let file = fs::File::create(dir.path().join("big/data.bin")).unwrap();
    file.set_len(MAX_SKILL_BYTES + 1).unwrap();
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert_eq!(error.path, dir.path().join("big"));
    assert!(matches!(error.problem, LoadProblem::TooLarge), "{error}");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_directory_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    write(&outside.path().join("secret.txt"), "secret");
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("a/SKILL.md"),
        "---\nname: a\ndescription: x\n---\n",
    );
    let link = dir.path().join("a/secret.txt");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), &link).unwrap();
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert_eq!(error.path, link);
    assert!(
        matches!(error.problem, LoadProblem::LinkEscapes { .. }),
        "{error}"
    );

    // A link to a file inside the directory is followed.
    fs::remove_file(&link).unwrap();
    write(&dir.path().join("shared/common.md"), "shared");
    std::os::unix::fs::symlink(
        dir.path().join("shared/common.md"),
        dir.path().join("a/common.md"),
    )
    .unwrap();
    let skills = skill::load_dir(dir.path()).unwrap();
    assert_eq!(skills[0].contents("common.md").unwrap(), b"shared");

    // A link to a directory is not.
    std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert!(
        matches!(error.problem, LoadProblem::LinkToDirectory),
        "{error}"
    );
}

/// A FIFO would hang a read: it is refused, not opened.
#[cfg(unix)]
#[test]
fn neither_a_file_nor_a_directory_is_refused_unopened() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("a/SKILL.md"),
        "---\nname: a\ndescription: x\n---\n",
    );
    let fifo = dir.path().join("a/pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert_eq!(error.path, fifo);
    assert!(matches!(error.problem, LoadProblem::NotAFile), "{error}");
}

#[test]
fn a_skill_md_at_the_root_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("SKILL.md"),
        "---\nname: a\ndescription: x\n---\n",
    );
    let error = skill::load_dir(dir.path()).unwrap_err();
    assert!(matches!(error.problem, LoadProblem::SkillAtRoot), "{error}");
    assert!(matches!(
        skill::load_dir(dir.path().join("missing"))
            .unwrap_err()
            .problem,
        LoadProblem::Io(_)
    ));
}

#[test]
fn an_added_skill_is_served_until_its_handle_drops() {
    let registry = Registry::new();
    let mut changes = registry.skills().watch();
    let handle = registry.skills().add(Skill::new("a", "b", "").unwrap());
    assert!(changes.has_changed().unwrap());
    changes.mark_unchanged();
    assert_eq!(registry.skills().entries()[0].uri, "skill://a/SKILL.md");
    drop(handle);
    assert!(registry.skills().is_empty());
    assert!(changes.has_changed().unwrap());
}
