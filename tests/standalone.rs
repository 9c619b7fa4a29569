//! The repository stands alone: a fresh clone, with nothing beside it, builds and passes its
//! tests. So no tracked file may point at a folder next to the checkout (the test data lives in
//! `engine-tests/data/`, the rules and protocol in `docs/`).

use std::path::Path;
use std::process::Command;

/// Texts that point outside the checkout. Built at run time so that this file does not contain
/// them itself.
fn forbidden() -> Vec<String> {
    let parent = "..";
    let folder = "shared";
    let mut texts = vec![format!("{parent}/{folder}"), format!("{folder}/testdata")];
    // The rule and protocol notes that used to lie there (now `docs/`).
    texts.extend(["UHP", "RULES"].map(|name| format!("{folder}/{name}.md")));
    texts
}

/// The tracked files under `root`, or why they cannot be listed.
fn tracked_files(root: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output()
        .map_err(|e| format!("git could not be run ({e})"))?;
    if !out.status.success() {
        return Err(format!(
            "not a git checkout ({})",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect())
}

/// `path:line: text` for every line of `bytes` that contains one of `needles`.
fn find(path: &str, bytes: &[u8], needles: &[String]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .enumerate()
        .filter(|(_, line)| needles.iter().any(|n| line.contains(n.as_str())))
        .map(|(i, line)| format!("{path}:{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn no_tracked_file_refers_to_a_folder_beside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = match tracked_files(root) {
        Ok(files) => files,
        Err(why) => {
            println!("SKIPPED: cannot list the tracked files: {why}");
            return;
        }
    };
    assert!(!files.is_empty(), "git ls-files listed nothing");
    let needles = forbidden();
    let mut offending = Vec::new();
    for path in &files {
        // A tracked file deleted in the working tree has nothing to check.
        if let Ok(bytes) = std::fs::read(root.join(path)) {
            offending.extend(find(path, &bytes, &needles));
        }
    }
    assert!(
        offending.is_empty(),
        "tracked files refer to a folder outside the repository ({}); \
         copy what is needed into the repository instead:\n{}",
        needles.join(", "),
        offending.join("\n")
    );
}

#[test]
fn the_check_catches_a_reference() {
    let needles = forbidden();
    let text = format!("let p = \"{}/testdata/x.csv\";\nfine\n", needles[0]);
    assert_eq!(
        find("x.rs", text.as_bytes(), &needles),
        [format!("x.rs:1: {}", text.lines().next().unwrap())]
    );
    assert!(find("y.rs", b"engine-tests/data/x.csv", &needles).is_empty());
}
