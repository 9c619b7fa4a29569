//! The arena over real processes: bookkeeping, saved games, broken engines, clocks, SPRT,
//! shards and merging.

mod common;

use common::{arena, check_html, check_match, records, run, test_engine, tmp_dir, waggle_binary};
use std::collections::BTreeSet;
use std::path::Path;
use waggle::core::{GameState, GameType};
use waggle_tools::arena::record::parse_results;
use waggle_tools::openings::random_openings;

/// Runs the arena with `-e` for each of `engines`, then `rest` split on white space (the
/// paths used here have none), and `--out dir`; returns its standard output and error.
fn play(engines: &[&str], rest: &str, dir: &Path) -> (String, String) {
    let mut args: Vec<&str> = Vec::new();
    for e in engines {
        args.extend(["-e", e]);
    }
    args.extend(rest.split_whitespace());
    let out_dir = dir.display().to_string();
    args.extend(["--out", &out_dir]);
    let out = arena(&args);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn random_movers_with_two_concurrent_games_keep_correct_books() {
    let dir = tmp_dir("arena-random");
    let a = format!("alpha={} --seed 11", test_engine());
    let b = format!("beta={}", test_engine());
    let rest = "--depth 1 --openings 8 --game-types all --concurrency 2 --max-moves 60";
    let (stdout, stderr) = play(&[&a, &b], rest, &dir);
    let recs = check_match(&dir, &stdout, &["alpha", "beta"], 16);
    // Openings cycle through the eight game types.
    for r in &recs {
        let expected = GameType::all()[r.opening].to_string();
        assert!(
            r.game_string.starts_with(&format!("{expected};")),
            "{}",
            r.game_string
        );
    }
    // Live progress: one line per game, the last one counting all sixteen.
    assert_eq!(stderr.matches(" alpha vs beta: ").count(), 16, "{stderr}");
    assert!(stderr.contains("[16/16] alpha vs beta"), "{stderr}");
    // Not a terminal: plain lines, each with the speed and the time left.
    assert_eq!(stderr.matches(" games/min, ETA ").count(), 16, "{stderr}");
    assert!(stdout.contains("Engine failures: none"), "{stdout}");
    assert!(stdout.contains("Game pairs"), "{stdout}");
}

#[test]
fn broken_engines_lose_with_the_reason_logged_and_the_match_goes_on() {
    for (mode, kind, evidence) in [
        ("crash", "crash", "crashing on purpose"),
        ("illegal", "illegal-move", "illegal-move of bad: '"),
        ("hang", "timeout", "hanging on purpose"),
        ("malformed", "malformed-reply", "this is not a move"),
        ("err", "error-reply", "err refusing on purpose"),
    ] {
        let dir = tmp_dir(&format!("arena-broken-{mode}"));
        let good = format!("good={}", test_engine());
        let bad = format!("bad={} --mode {mode}", test_engine());
        // The grace is short to keep the hang test quick, yet far above a reply's latency.
        let rest = "--move-time 0.02 --grace-ms 500 --openings 2 --concurrency 2";
        let (stdout, _) = play(&[&good, &bad], rest, &dir);
        let recs = check_match(&dir, &stdout, &["good", "bad"], 4);
        for r in &recs {
            let bad_lost = (r.white == "bad" && r.result == GameState::BlackWins)
                || (r.black == "bad" && r.result == GameState::WhiteWins);
            assert!(bad_lost, "{mode}: game {} {:?}", r.id, r);
            assert_eq!(r.termination, kind, "{mode}: {}", r.reason);
            assert!(r.reason.contains("of bad"), "{}", r.reason);
        }
        let log = std::fs::read_to_string(dir.join("failures.log")).unwrap();
        assert_eq!(log.matches("bad lost").count(), 4, "{log}");
        assert!(log.contains("last command: bestmove time"), "{log}");
        assert!(log.contains(evidence), "{mode}: {log}");
        assert!(log.contains("fresh one starts"), "{log}");
        assert!(
            stdout.contains(&format!("Engine failures: bad {kind} 4")),
            "{stdout}"
        );
    }
}

#[test]
fn a_flag_fall_on_the_game_clock_loses() {
    let dir = tmp_dir("arena-clock");
    let quick = format!("quick={}", test_engine());
    let slow = format!("slow={} --delay-ms 300", test_engine());
    let rest = "--clock 0.5+0 --openings 1 --concurrency 2";
    let (stdout, _) = play(&[&quick, &slow], rest, &dir);
    let recs = check_match(&dir, &stdout, &["quick", "slow"], 2);
    for r in &recs {
        assert_eq!(r.termination, "flag-fall", "{}", r.reason);
        assert!(
            r.reason.starts_with("flag-fall of slow: used"),
            "{}",
            r.reason
        );
        // 0.5 s lasts one move of 0.3 s (200 ms to spare); the second one falls.
        let slow_moves = if r.white == "slow" {
            (r.plies - 4).div_ceil(2)
        } else {
            (r.plies - 4) / 2
        };
        assert_eq!(slow_moves, 1, "{r:?}");
    }
    assert!(stdout.contains("clock 0.5+0 s"), "{stdout}");
}

#[test]
fn sprt_stops_when_a_bound_is_crossed() {
    let dir = tmp_dir("arena-sprt");
    let good = format!("good={}", test_engine());
    let bad = format!("bad={} --mode illegal --after 1", test_engine());
    let rest = "--move-time 0.01 --openings 200 --sprt elo0=0,elo1=10,alpha=0.05,beta=0.05";
    let (stdout, stderr) = play(&[&good, &bad], rest, &dir);
    let recs = records(&dir);
    assert!(
        recs.len() < 400,
        "SPRT should stop early, played {}",
        recs.len()
    );
    assert!(recs.len() >= 2);
    assert!(stdout.contains("SPRT (pentanomial"), "{stdout}");
    assert!(
        stdout.contains("H1 accepted: good is stronger than bad"),
        "{stdout}"
    );
    assert!(stdout.contains("SPRT result: H1 accepted"), "{stdout}");
    assert!(stderr.contains("SPRT bound crossed"), "{stderr}");
    assert!(
        stdout.contains(&format!("Played {} of 400", recs.len())),
        "{stdout}"
    );
    let page = check_html(
        &dir.join("report.html"),
        &["elo", "llr", "game-types", "openings"],
    );
    assert!(page.contains("accept H1"), "{page}");
}

#[test]
fn shards_cover_the_schedule_and_merge_into_one_report() {
    let base = tmp_dir("arena-shards");
    let a = format!("a={} --seed 3", test_engine());
    let b = format!("b={} --seed 4", test_engine());
    let openings = random_openings(3, 6, 9, &[GameType::MLP], true);
    let mut files = Vec::new();
    let mut ids = BTreeSet::new();
    for (k, shard) in ["1/2", "2/2"].into_iter().enumerate() {
        let dir = base.join(format!("shard-{k}"));
        let rest = format!(
            "--depth 1 --openings 3 --seed 9 --opening-plies 6 --game-types Base+MLP \
             --max-moves 30 --shard {shard}"
        );
        let (stdout, _) = play(&[&a, &b], &rest, &dir);
        assert!(stdout.contains(&format!("Shard {shard}")), "{stdout}");
        for r in records(&dir) {
            assert!(ids.insert(r.id), "game {} played by two shards", r.id);
            // Shard 1 plays pairs 0 and 2, shard 2 pair 1.
            assert_eq!(r.pair % 2, k);
            // Both shards build the same openings from the seed.
            let opening = openings[r.opening].game_string();
            let opening_moves = opening.split(';').skip(3).collect::<Vec<_>>();
            let game_moves = r.game_string.split(';').skip(3).collect::<Vec<_>>();
            assert_eq!(&game_moves[..6], &opening_moves[..], "game {}", r.id);
        }
        files.push(dir.join("results.tsv").display().to_string());
    }
    assert_eq!(ids, (0..6).collect());
    let out = arena(&["merge", &files[0], &files[1], "--sprt", "elo0=0,elo1=10"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Merged 2 result files"), "{stdout}");
    assert!(stdout.contains("Results (gauntlet, 6 games)"), "{stdout}");
    assert!(stdout.contains("3 pairs"), "{stdout}");
    assert!(stdout.contains("SPRT (pentanomial"), "{stdout}");
    assert!(stdout.contains("SPRT result: no bound crossed"), "{stdout}");
    let html = base.join("merged.html").display().to_string();
    arena(&[
        "merge",
        &files[0],
        &files[1],
        "--sprt",
        "elo0=0,elo1=10",
        "--html",
        &html,
    ]);
    check_html(Path::new(&html), &["elo", "llr", "game-types", "openings"]);
    // The merged games written as one file, with and without their GameStrings, give the
    // same report.
    let tally = |stdout: &str| {
        stdout
            .lines()
            .skip_while(|l| !l.starts_with("Results"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (name, extra) in [("all.tsv", None), ("small.tsv", Some("--without-games"))] {
        let written = base.join(name).display().to_string();
        let mut args = vec!["merge", &files[0], &files[1], "--write", &written];
        args.extend(extra);
        arena(&args);
        let text = std::fs::read_to_string(&written).unwrap();
        let file = parse_results(&text, name).unwrap();
        assert_eq!(file.records.len(), 6);
        assert!(file.settings.is_some_and(|s| s.contains("seed 9")));
        let ids: Vec<usize> = file.records.iter().map(|r| r.id).collect();
        assert_eq!(ids, (0..6).collect::<Vec<_>>());
        let kept = file
            .records
            .iter()
            .all(|r| r.game_string.starts_with("Base+MLP;"));
        let dropped = file.records.iter().all(|r| r.game_string == "-");
        assert!(if extra.is_some() { dropped } else { kept }, "{text}");
        let again = arena(&["merge", &written, "--sprt", "elo0=0,elo1=10"]);
        assert_eq!(
            tally(&String::from_utf8_lossy(&again.stdout)),
            tally(&stdout)
        );
    }
    // Merging a file twice counts its games once.
    let out = arena(&["merge", &files[0], &files[0]]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("counted once"), "{stdout}");
    assert!(stdout.contains("Results (gauntlet, 4 games)"), "{stdout}");
}

#[test]
fn openings_come_from_a_file_of_game_strings() {
    let dir = tmp_dir("arena-openings-file");
    let file = dir.join("openings.txt");
    let opening = "Base+P;InProgress;Black[2];wS1;bG1 -wS1;wQ wS1/";
    std::fs::write(&file, format!("# two openings\nBase+L\n{opening}\n")).unwrap();
    let a = format!("a={}", test_engine());
    let b = format!("b={}", test_engine());
    let rest = format!(
        "--depth 1 --max-moves 20 --openings-file {}",
        file.display()
    );
    let (stdout, _) = play(&[&a, &b], &rest, &dir.join("out"));
    let recs = check_match(&dir.join("out"), &stdout, &["a", "b"], 4);
    for r in &recs {
        if r.opening == 0 {
            assert!(r.game_string.starts_with("Base+L;"), "{}", r.game_string);
        } else {
            let moves = r.game_string.split(';').skip(3).take(3).collect::<Vec<_>>();
            assert_eq!(moves, ["wS1", "bG1 -wS1", "wQ wS1/"], "{}", r.game_string);
        }
    }
    assert!(stdout.contains("openings: 2 from"), "{stdout}");
}

#[test]
fn round_robins_print_standings_and_a_crosstable() {
    let dir = tmp_dir("arena-round-robin");
    let engines: Vec<String> = ["x", "y", "z"]
        .iter()
        .map(|n| format!("{n}={}", test_engine()))
        .collect();
    let refs: Vec<&str> = engines.iter().map(String::as_str).collect();
    let rest = "--round-robin --depth 1 --openings 1 --max-moves 20 --concurrency 2";
    let (stdout, _) = play(&refs, rest, &dir);
    check_match(&dir, &stdout, &["x", "y", "z"], 6);
    assert!(stdout.contains("Standings"), "{stdout}");
    assert!(stdout.contains("Crosstable"), "{stdout}");
    check_html(
        &dir.join("report.html"),
        &["elo", "game-types", "openings", "crosstable"],
    );
}

#[test]
fn bad_command_lines_stop_the_match_at_once() {
    let dir = tmp_dir("arena-bad-command");
    let out_dir = dir.display().to_string();
    let args = [
        "-e",
        test_engine(),
        "-e",
        "/nonexistent/engine",
        "--depth",
        "1",
        "--out",
        &out_dir,
    ];
    let out = run(env!("CARGO_BIN_EXE_arena"), &args);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("could not start"), "{stderr}");
}

#[test]
fn waggle_against_itself_at_depth_one() {
    let waggle = waggle_binary();
    let dir = tmp_dir("arena-waggle");
    let a = format!("w1={}", waggle.display());
    let b = format!("w2={}", waggle.display());
    let rest = "--depth 1 --openings 2 --game-types Base+MLP --concurrency 2 --max-moves 100";
    let (stdout, _) = play(&[&a, &b], rest, &dir);
    let recs = check_match(&dir, &stdout, &["w1", "w2"], 4);
    for r in &recs {
        assert!(
            matches!(
                r.termination.as_str(),
                "queen-surrounded" | "both-queens" | "repetition" | "max-moves"
            ),
            "waggle failed: {}",
            r.reason
        );
    }
    assert!(stdout.contains("Engine failures: none"), "{stdout}");
}

#[test]
fn the_whole_seconds_test_engine_refuses_fractions_like_the_real_one() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(test_engine())
        .arg("--whole-seconds")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"newgame Base\nbestmove time 00:00:00.500\nbestmove time 00:00:01\nexit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.contains(&"err UnrecognizedCommand(\"time 00:00:00.500\")"),
        "{stdout}"
    );
    // The whole-seconds request gets a move (the line after the err's `ok`).
    let after = lines.iter().rposition(|l| l.starts_with("err ")).unwrap();
    assert_eq!(lines[after + 1], "ok");
    assert!(lines[after + 2].starts_with('w'), "{stdout}");
}

#[test]
fn engines_refusing_fractions_get_whole_seconds_and_the_report_says_so() {
    for limit in ["--move-time 0.2", "--clock 3+0.1"] {
        let dir = tmp_dir(&format!("arena-whole-{}", &limit[2..6]));
        let strict = format!("strict={} --whole-seconds", test_engine());
        let usual = format!("usual={}", test_engine());
        let rest = format!("{limit} --openings 2 --max-moves 4 --concurrency 2");
        let (stdout, stderr) = play(&[&strict, &usual], &rest, &dir);
        let recs = check_match(&dir, &stdout, &["strict", "usual"], 4);
        for r in &recs {
            assert_eq!(r.termination, "max-moves", "{limit}: {}", r.reason);
        }
        assert!(stdout.contains("Engine failures: none"), "{stdout}");
        let strict_line = stdout.lines().find(|l| l.contains("strict: ")).unwrap();
        assert!(strict_line.contains("whole seconds"), "{stdout}");
        let usual_line = stdout.lines().find(|l| l.contains("usual: ")).unwrap();
        assert!(!usual_line.contains("whole seconds"), "{stdout}");
        assert!(stderr.contains("whole seconds"), "{stderr}");
    }
}

#[test]
fn other_spellings_shuffled_lists_and_extra_lines_are_understood() {
    let dir = tmp_dir("arena-quirky");
    let quirky = format!("quirky={} --quirky", test_engine());
    let plain = format!("plain={}", test_engine());
    let rest = "--move-time 0.01 --openings 4 --game-types all --max-moves 40 --concurrency 2";
    let (stdout, _) = play(&[&quirky, &plain], rest, &dir);
    let recs = check_match(&dir, &stdout, &["quirky", "plain"], 8);
    for r in &recs {
        assert!(
            matches!(
                r.termination.as_str(),
                "queen-surrounded" | "both-queens" | "repetition" | "max-moves"
            ),
            "{}",
            r.reason
        );
    }
    // The quirky engine really spells moves differently, lists them out of order and adds
    // lines: ask it directly.
    use std::io::Write;
    use std::process::{Command, Stdio};
    let position = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-";
    let mut child = Command::new(test_engine())
        .args(["--quirky", "--seed", "5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!("newgame {position}\nbestmove depth 1\nvalidmoves\nexit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("note: new game"), "{stdout}");
    assert!(stdout.contains("thinking"), "{stdout}");
    let list = stdout.lines().rev().nth(1).unwrap();
    let game = waggle::notation::parse_game_string(position, true).unwrap();
    let spelt: Vec<&str> = list.split(';').collect();
    let canonical: Vec<String> = spelt
        .iter()
        .map(|s| {
            let m = waggle::notation::parse_move(&game, s).unwrap();
            waggle::notation::format_move(&game, m)
        })
        .collect();
    assert!(spelt.iter().zip(&canonical).any(|(s, c)| s != c), "{list}");
    let mut sorted = canonical.clone();
    sorted.sort();
    assert_ne!(sorted, canonical, "{list}");
}

#[test]
fn seeded_test_engines_play_the_same_game_whatever_they_played_before() {
    let a = format!("a={} --seed 3", test_engine());
    let b = format!("b={} --seed 4", test_engine());
    let mut runs = Vec::new();
    for (k, concurrency) in ["1", "2"].into_iter().enumerate() {
        let dir = tmp_dir(&format!("arena-seeded-{k}"));
        let rest = format!("--depth 1 --openings 3 --max-moves 20 --concurrency {concurrency}");
        play(&[&a, &b], &rest, &dir);
        let mut lines: Vec<String> = records(&dir)
            .iter()
            .map(|r| format!("{} {} {}", r.id, r.result.name(), r.game_string))
            .collect();
        lines.sort();
        runs.push(lines);
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn resume_plays_only_the_missing_games_and_refuses_another_match() {
    let dir = tmp_dir("arena-resume");
    let a = format!("a={} --seed 5", test_engine());
    let b = format!("b={} --seed 6", test_engine());
    let rest = "--depth 1 --openings 3 --max-moves 20 --shard 1/1";
    let (stdout, _) = play(&[&a, &b], rest, &dir);
    let full = records(&dir);
    assert_eq!(full.len(), 6, "{stdout}");
    // Lose the last two games, and leave half a line, as a process killed while writing.
    let path = dir.join("results.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let cut = lines.pop().unwrap();
    lines.pop();
    let damaged = format!("{}\n{}", lines.join("\n"), &cut[..cut.len() / 2]);
    std::fs::write(&path, damaged).unwrap();
    let (stdout, stderr) = play(&[&a, &b], &format!("{rest} --resume"), &dir);
    assert!(stdout.contains("Resumed: 4 games"), "{stdout}");
    assert!(stderr.contains("Resuming: 4 of 6"), "{stderr}");
    let lines = |recs: &[waggle_tools::arena::record::GameRecord]| {
        let mut v: Vec<String> = recs.iter().map(|r| r.to_line()).collect();
        v.sort();
        v
    };
    assert_eq!(lines(&records(&dir)), lines(&full));
    // Nothing left to play: nothing changes.
    play(&[&a, &b], &format!("{rest} --resume"), &dir);
    assert_eq!(lines(&records(&dir)), lines(&full));
    // Other settings or another shard: refused.
    for other in [
        "--depth 1 --openings 3 --max-moves 30 --shard 1/1 --resume",
        "--depth 1 --openings 3 --max-moves 20 --shard 1/2 --resume",
    ] {
        let mut args = vec!["-e", &a, "-e", &b];
        args.extend(other.split_whitespace());
        let out_dir = dir.display().to_string();
        args.extend(["--out", &out_dir]);
        let out = run(env!("CARGO_BIN_EXE_arena"), &args);
        assert!(!out.status.success(), "{other}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot resume"), "{stderr}");
    }
}

#[test]
fn spsa_plays_pairs_logs_its_values_and_resumes() {
    let waggle = waggle_binary();
    let dir = tmp_dir("arena-spsa");
    let log = dir.join("spsa.tsv").display().to_string();
    let engine = format!("{} --option MaxHelperThreads=0", waggle.display());
    let spsa = |iterations: &str, extra: &[&str]| {
        let mut args = vec![
            "spsa",
            "-e",
            &engine,
            "--param",
            "lmp_base=4,1,10,0.5",
            "--param",
            "rfp_margin=60,0,200,10",
            "--iterations",
            iterations,
            "--r-end",
            "0.5",
            "--depth",
            "1",
            "--concurrency",
            "2",
            "--log",
            &log,
        ];
        args.extend(extra);
        String::from_utf8_lossy(&arena(&args).stdout).into_owned()
    };
    let stdout = spsa("3", &[]);
    let data_lines = || {
        let text = std::fs::read_to_string(&log).unwrap();
        text.lines()
            .skip_while(|l| !l.starts_with("iteration\t"))
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    let lines = data_lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let mut iterations: Vec<&str> = lines.iter().map(|l| l[0].as_str()).collect();
    iterations.sort();
    assert_eq!(iterations, ["1", "2", "3"]);
    for l in &lines {
        assert_eq!(l.len(), 4);
        let result: f64 = l[1].parse().unwrap();
        assert!((-2.0..=2.0).contains(&result));
        let rfp: f64 = l[3].parse().unwrap();
        assert!((0.0..=200.0).contains(&rfp));
    }
    // The final values, as the last line has them, rounded.
    let last = lines.last().unwrap();
    let rounded = |s: &str| s.parse::<f64>().unwrap().round() as i64;
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("--search lmp_base={}", rounded(&last[2])),
            format!("--search rfp_margin={}", rounded(&last[3]))
        ]
    );
    // Resuming plays only the iterations missing from the log.
    spsa("4", &["--resume"]);
    assert_eq!(data_lines().len(), 4);
    assert_eq!(data_lines()[3][0], "4");
    // A parameter the engine does not know stops the run before any game.
    let bad = [
        "spsa",
        "-e",
        &engine,
        "--param",
        "nonsense=1,0,3,1",
        "--depth",
        "1",
        "--log",
        &log,
    ];
    let out = run(env!("CARGO_BIN_EXE_arena"), &bad);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nonsense=1"), "{stderr}");
}
