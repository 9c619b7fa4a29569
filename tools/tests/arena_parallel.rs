//! The many-machines driver `scripts/arena-parallel.sh` with 4 local GNU parallel slots: a
//! sharded match gives the same games as the same match unsharded, even with a shard killed
//! halfway and rerun; an SPRT over the merged shards stops every shard.
//!
//! Needs GNU parallel (`.ci/run` installs it); without it these tests say so and pass.

mod common;

use common::{arena, check_html, records, test_engine, tmp_dir};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/arena-parallel.sh")
}

fn have_parallel() -> bool {
    let found = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: GNU parallel is not installed (apt-get install parallel)");
    }
    found
}

/// The driver's command: 4 slots, 4 shards, output in `out`, then `--` and `arena_args`.
fn driver(out: &Path, extra: &[&str], arena_args: &[String]) -> Command {
    let mut c = Command::new("bash");
    c.arg(script())
        .args(["-j", "4", "-n", "4", "--poll", "0.5", "--arena"])
        .arg(env!("CARGO_BIN_EXE_arena"))
        .arg("-o")
        .arg(out)
        .args(extra)
        .arg("--")
        .args(arena_args);
    c
}

/// Every game of the result files as one comparable line.
fn game_lines(files: &[PathBuf]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in files {
        for r in records(f.parent().unwrap()) {
            let line = format!(
                "{} {} {} {} {} {} {} {}",
                r.id,
                r.pair,
                r.opening,
                r.white,
                r.black,
                r.result.name(),
                r.plies,
                r.game_string
            );
            assert!(out.insert(line), "game {} twice", r.id);
        }
    }
    out
}

/// The process id of the arena running shard `shard` with output under `dir`.
fn shard_pid(dir: &Path, shard: &str) -> Option<u32> {
    let dir = dir.display().to_string();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let is_arena = args
            .first()
            .is_some_and(|a| a.ends_with("/arena") || a == "arena");
        let is_shard = args.windows(2).any(|w| w[0] == "--shard" && w[1] == shard);
        if is_arena && is_shard && args.iter().any(|a| a.starts_with(&dir)) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_sharded_match_with_a_killed_shard_gives_the_games_of_the_unsharded_one() {
    if !have_parallel() {
        return;
    }
    let base = tmp_dir("arena-parallel-same");
    let args: Vec<String> = [
        "-e",
        &format!("a={} --seed 3 --delay-ms 8", test_engine()),
        "-e",
        &format!("b={} --seed 4 --delay-ms 8", test_engine()),
        "--depth",
        "1",
        "--openings",
        "8",
        "--game-types",
        "all",
        "--max-moves",
        "25",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // The same match, unsharded.
    let reference = base.join("reference");
    let mut plain: Vec<&str> = args.iter().map(String::as_str).collect();
    let reference_out = reference.display().to_string();
    plain.extend(["--concurrency", "4", "--out", &reference_out]);
    arena(&plain);
    let expected = game_lines(&[reference.join("results.tsv")]);
    assert_eq!(expected.len(), 16);

    // Sharded, killing shard 2 once it has recorded a game.
    let out = base.join("sharded");
    let mut child = driver(&out, &[], &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let results = out.join("shard-2/results.tsv");
    let started = Instant::now();
    let mut killed = false;
    while started.elapsed() < Duration::from_secs(60) {
        let recorded = std::fs::read_to_string(&results)
            .map(|t| {
                t.lines()
                    .filter(|l| l.starts_with(char::is_numeric))
                    .count()
            })
            .unwrap_or(0);
        if recorded >= 1 {
            let pid = shard_pid(&out, "2/4").expect("shard 2 finished before it could be killed");
            let status = Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            killed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(killed, "shard 2 recorded no game within a minute");
    let status = child.wait().unwrap();
    let report = std::fs::read_to_string(out.join("report.txt")).unwrap_or_default();
    assert!(status.success(), "driver failed:\n{report}");
    // Shard 2 was rerun and kept what it had.
    let shard2 = std::fs::read_to_string(out.join("shard-2/report.txt")).unwrap();
    assert!(shard2.contains("Resumed: "), "{shard2}");
    let files: Vec<PathBuf> = (1..=4)
        .map(|i| out.join(format!("shard-{i}/results.tsv")))
        .collect();
    assert_eq!(game_lines(&files), expected);
    assert!(report.contains("Merged 4 result files"), "{report}");
    assert!(report.contains("Results (gauntlet, 16 games)"), "{report}");
    assert!(!report.contains("counted once"), "{report}");
    assert!(!report.contains("INCOMPLETE"), "{report}");
    check_html(&out.join("report.html"), &["elo", "game-types", "openings"]);
}

#[test]
fn an_sprt_over_the_merged_shards_stops_every_shard() {
    if !have_parallel() {
        return;
    }
    let out = tmp_dir("arena-parallel-sprt");
    let args: Vec<String> = vec![
        "-e".into(),
        format!("good={} --delay-ms 20", test_engine()),
        "-e".into(),
        format!("bad={} --mode illegal --after 1", test_engine()),
        "--depth".into(),
        "1".into(),
        "--openings".into(),
        "1000".into(),
    ];
    let output = driver(&out, &["--sprt", "elo0=0,elo1=10"], &args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("SPRT result: H1 accepted"), "{stdout}");
    assert!(stdout.contains("Stopped early"), "{stdout}");
    let mut total = 0;
    for i in 1..=4 {
        let dir = out.join(format!("shard-{i}"));
        let report = std::fs::read_to_string(dir.join("report.txt")).unwrap();
        assert!(
            report.contains("Stopped: the stop file"),
            "shard {i}: {report}"
        );
        let played = records(&dir).len();
        assert!(played < 500, "shard {i} played all its games");
        total += played;
    }
    assert!(
        stdout.contains(&format!("Results (gauntlet, {total} games)")),
        "{stdout}"
    );
    check_html(
        &out.join("report.html"),
        &["elo", "llr", "game-types", "openings"],
    );
}
