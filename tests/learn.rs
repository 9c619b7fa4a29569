//! Learning the evaluation: self-play data (`waggle datagen`), its line format, the Texel tuner
//! (`waggle tune`), the network's trainer (`waggle tune-net`) and weights files read back by
//! the engine.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use waggle::core::{Color, GameState, GameType};
use waggle::eval::{DEFAULT_WEIGHTS_TEXT, EvalWeights, WeightSets};
use waggle::learn::data::{Outcome, Sample};
use waggle::learn::datagen::{DatagenConfig, GameRecord, generate};
use waggle::notation::parse_game_string;

fn run_datagen(config: &DatagenConfig) -> Vec<GameRecord> {
    let mut records = Vec::new();
    generate(config, &AtomicBool::new(false), &mut |r| records.push(r));
    records
}

#[test]
fn self_play_records_are_consistent_with_how_the_games_ended() {
    let config = DatagenConfig {
        games: 3,
        depth: 1,
        threads: 2,
        seed: 5,
        max_plies: 120,
        ..DatagenConfig::default()
    };
    let records = run_datagen(&config);
    assert_eq!(
        records.iter().map(|r| r.index).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    let mut samples = 0;
    for r in &records {
        let end = parse_game_string(&r.game, true).expect("the final GameString loads");
        match end.state() {
            GameState::WhiteWins => assert_eq!(r.white_result, Outcome::Win),
            GameState::BlackWins => assert_eq!(r.white_result, Outcome::Loss),
            GameState::Draw => assert_eq!(r.white_result, Outcome::Draw),
            GameState::NotStarted | GameState::InProgress => {
                assert!(r.adjudicated, "{}", r.game);
                assert_eq!(end.ply(), config.max_plies);
                assert_eq!(r.white_result, Outcome::Draw);
            }
        }
        assert!(r.samples.len() as u32 <= r.searched);
        for s in &r.samples {
            assert_eq!(Sample::parse_line(&s.to_line()).as_ref(), Ok(s));
            let g = parse_game_string(&s.game, true).expect("a sample's GameString loads");
            assert!(!g.state().is_over());
            // A position of this game: its moves begin the game's moves.
            let moves = s.game.split(';').skip(3).collect::<Vec<_>>();
            let all = r.game.split(';').skip(3).collect::<Vec<_>>();
            assert_eq!(
                moves[..],
                all[..moves.len()],
                "{} not in {}",
                s.game,
                r.game
            );
            let want = match g.side_to_move() {
                Color::White => r.white_result,
                Color::Black => r.white_result.flip(),
            };
            assert_eq!(s.result, want, "{}", s.game);
            assert!(s.score.abs() < waggle::eval::WIN_THRESHOLD);
            samples += 1;
        }
    }
    assert!(samples > 10, "only {samples} positions kept");
    // The same settings give the same data, whatever the number of threads.
    let one_thread = run_datagen(&DatagenConfig {
        threads: 1,
        ..config.clone()
    });
    assert_eq!(one_thread, records);
}

#[test]
fn self_play_keeps_to_the_game_types_asked_for() {
    let types = [
        GameType::BASE,
        GameType::parse("Base+P").expect("a game type"),
    ];
    let records = run_datagen(&DatagenConfig {
        games: 6,
        depth: 1,
        threads: 2,
        seed: 9,
        max_plies: 40,
        game_types: types.to_vec(),
        ..DatagenConfig::default()
    });
    let mut seen = Vec::new();
    for r in &records {
        let game = parse_game_string(&r.game, true).expect("the final GameString loads");
        assert!(types.contains(&game.game_type()), "{}", r.game);
        seen.push(game.game_type());
    }
    // Both were drawn (for this seed; the draw is uniform over the list).
    assert!(types.iter().all(|t| seen.contains(t)), "{seen:?}");
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("waggle-learn-{}-{name}", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn waggle(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(args)
        .output()
        .expect("run waggle");
    assert!(out.status.success(), "waggle {args:?} failed: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn datagen_then_tune_writes_weights_the_engine_reads() {
    let data = TempFile::new("data.txt");
    let general = TempFile::new("general.txt");
    let base = TempFile::new("base.txt");
    let data_path = data.0.to_str().expect("a UTF-8 temporary path");
    waggle(&[
        "datagen",
        "--games",
        "4",
        "--depth",
        "1",
        "--threads",
        "2",
        // Base has a set of its own in the compiled-in file, Base+M has not.
        "--game-types",
        "Base,Base+M",
        "--out",
        data_path,
    ]);
    let text = std::fs::read_to_string(&data.0).expect("the data file");
    assert!(text.lines().count() > 5, "{text}");
    for line in text.lines() {
        let s = Sample::parse_line(line).expect("a data line");
        parse_game_string(&s.game, true).expect("its GameString loads");
    }
    // Fit the general set, then Base's own set: each fit changes its set and keeps the rest.
    let default = WeightSets::default();
    let mut fitted = Vec::new();
    for (file, game_type) in [(&general, None), (&base, Some("Base"))] {
        let path = file.0.to_str().expect("a UTF-8 temporary path");
        let mut args = vec!["tune", "--data", data_path, "--out", path];
        // Two iterations on four games: too few to hold some out (the held-out loss could
        // stop the fit before its first change, which is right for a fit, useless here).
        args.extend(["--iterations", "2", "--holdout", "0"]);
        if let Some(t) = game_type {
            args.extend(["--game-type", t]);
        }
        waggle(&args);
        let text = std::fs::read_to_string(&file.0).expect("the written weights");
        let sets = WeightSets::from_text(&text).expect("the tuned weights load");
        let bench = waggle(&["bench", "--depth", "2", "--weights", path]);
        assert!(
            bench
                .lines()
                .last()
                .is_some_and(|l| l.starts_with("nodes="))
        );
        fitted.push(sets);
    }
    let b = GameType::BASE;
    assert_ne!(fitted[0].general(), default.general());
    assert_eq!(fitted[0].own(b), default.own(b));
    assert_eq!(fitted[1].general(), default.general());
    assert_ne!(fitted[1].for_type(b), default.for_type(b));
    assert!(fitted[1].own(b).is_some());
    // With `--only`, the named groups alone may change (the full fit above changed others).
    let only = TempFile::new("only.txt");
    let path = only.0.to_str().expect("a UTF-8 temporary path");
    let args = [
        "tune",
        "--data",
        data_path,
        "--out",
        path,
        "--iterations",
        "2",
    ];
    waggle(&[&args[..], &["--holdout", "0", "--only", "tempo,queen_ring"]].concat());
    let text = std::fs::read_to_string(&only.0).expect("the written weights");
    let sets = WeightSets::from_text(&text).expect("the tuned weights load");
    let (got, start) = (sets.general(), default.general());
    let others = EvalWeights {
        tempo: start.tempo,
        queen_ring: start.queen_ring,
        ..got.clone()
    };
    assert_eq!(&others, start);
    // A group that does not exist is refused before any work.
    let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args([&args[..], &["--only", "tempi"]].concat())
        .output()
        .expect("run waggle");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no weight group 'tempi'"), "{err}");
}

#[test]
fn datagen_then_tune_net_writes_a_network_the_engine_reads() {
    let data = TempFile::new("net-data.txt");
    let out = TempFile::new("net.txt");
    let data_path = data.0.to_str().expect("a UTF-8 temporary path");
    let out_path = out.0.to_str().expect("a UTF-8 temporary path");
    waggle(&[
        "datagen",
        "--games",
        "6",
        "--depth",
        "1",
        "--game-types",
        "Base",
        "--out",
        data_path,
    ]);
    waggle(&[
        "tune-net",
        "--data",
        data_path,
        "--game-type",
        "Base",
        "--hidden",
        "4",
        "--epochs",
        "3",
        "--holdout",
        "0",
        "--out",
        out_path,
    ]);
    let text = std::fs::read_to_string(&out.0).expect("the written weights");
    let sets = WeightSets::from_text(&text).expect("the weights with a network load");
    let default = WeightSets::default();
    let b = GameType::BASE;
    let net = sets
        .for_type(b)
        .net
        .as_ref()
        .expect("Base's set has a network");
    assert_eq!(net.hidden(), 4);
    // The linear part of Base's set and the other sets are kept.
    let linear = EvalWeights {
        net: None,
        ..sets.for_type(b).clone()
    };
    assert_eq!(&linear, default.for_type(b));
    assert_eq!(sets.general(), default.general());
    // The engine searches with it; a network of the wrong shape is refused.
    let bench = waggle(&["bench", "--depth", "2", "--weights", out_path]);
    assert!(
        bench
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("nodes="))
    );
    let bad = text.replace("net_b1 = ", "net_b1 = 1 ");
    std::fs::write(&out.0, bad).expect("write the weights");
    let run = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(["bench", "--weights", out_path])
        .output()
        .expect("run waggle");
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("net_w1, net_b1 and net_w2"), "{err}");
}

/// The bench's lines without the times.
fn bench_without_times(args: &[&str]) -> Vec<String> {
    waggle(args)
        .lines()
        .map(|l| {
            // Numbers are padded after `=`.
            let mut l = l.to_string();
            while l.contains("= ") {
                l = l.replace("= ", "=");
            }
            l.split_whitespace()
                .filter(|w| !w.starts_with("time_ms=") && !w.starts_with("nps="))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn weights_loaded_from_a_file_search_like_the_compiled_in_ones() {
    let file = TempFile::new("default.txt");
    std::fs::write(&file.0, DEFAULT_WEIGHTS_TEXT).expect("write the weights");
    let path = file.0.to_str().expect("a UTF-8 temporary path");
    let compiled = bench_without_times(&["bench", "--depth", "4"]);
    assert!(compiled.len() > 30);
    assert_eq!(
        bench_without_times(&["bench", "--depth", "4", "--weights", path]),
        compiled
    );
    let bad = TempFile::new("bad.txt");
    std::fs::write(&bad.0, "tempo = 6\n").expect("write the weights");
    let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(["bench", "--weights", bad.0.to_str().expect("UTF-8")])
        .output()
        .expect("run waggle");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing"), "{err}");
}

/// The UHP engine's reply to `eval` at the start of a Base game, run with `args`.
fn uhp_eval_total(args: &[&str]) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start waggle");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"newgame Base\neval\nexit\n")
        .expect("write commands");
    let out = child.wait_with_output().expect("waggle's output");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8 output");
    text.lines()
        .find(|l| l.starts_with("total "))
        .unwrap_or_else(|| panic!("no total in {text}"))
        .to_string()
}

#[test]
fn the_uhp_engine_plays_with_a_weights_file() {
    let file = TempFile::new("tempo.txt");
    let tempo = EvalWeights {
        tempo: 1000,
        ..EvalWeights::default()
    };
    std::fs::write(&file.0, tempo.to_text()).expect("write the weights");
    let path = file.0.to_str().expect("a UTF-8 temporary path");
    // At the start only the bonus for having the move counts.
    let default = WeightSets::default().for_type(GameType::BASE).tempo;
    assert!(uhp_eval_total(&[]).starts_with(&format!("total {default} ")));
    assert!(uhp_eval_total(&["--weights", path]).starts_with("total 1000 "));
}

#[test]
fn search_parameters_from_the_command_line_change_the_search() {
    let default = bench_without_times(&["bench", "--depth", "4"]);
    // Setting a parameter to its default value changes nothing; another value does.
    assert_eq!(
        bench_without_times(&["bench", "--depth", "4", "--search", "lmr_percent=100"]),
        default
    );
    let stronger = bench_without_times(&["bench", "--depth", "4", "--search", "lmr_percent=200"]);
    assert_ne!(stronger.last(), default.last());
    for bad in ["lmr_percent=lots", "no_such_thing=1", "lmr_percent"] {
        for args in [
            vec!["bench", "--depth", "1", "--search", bad],
            vec!["--search", bad],
        ] {
            let out = Command::new(env!("CARGO_BIN_EXE_waggle"))
                .args(&args)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run waggle");
            assert!(!out.status.success(), "{args:?}");
            assert!(!String::from_utf8_lossy(&out.stderr).is_empty(), "{args:?}");
        }
    }
}

#[test]
fn every_search_parameter_can_be_set_by_name() {
    use waggle::search::SearchParams;
    use waggle::search::mcts::MctsParams;
    let mut p = SearchParams::default();
    for (name, value) in [
        ("aspiration", "false"),
        ("lmr", "false"),
        ("lmr_percent", "150"),
        ("quiescence", "false"),
        ("quiescence_pressure", "3"),
        ("quiescence_plies", "4"),
        ("quiescence_evasions", "true"),
        ("rfp_margin", "75"),
        ("futility_margin", "200"),
        ("futility_depth", "2"),
        ("lmp_base", "6"),
        ("countermove", "true"),
        ("correction", "50"),
        ("aspiration_delta", "45"),
        ("soft_percent", "80"),
        ("reduce_below", "48001"),
        ("prune_below", "30000"),
        ("mcts_exploration", "1.5"),
        ("mcts_eval_scale", "250"),
        ("mcts_first_play_reduction", "0"),
        ("mcts_prior_temperature", "10000"),
        ("mcts_prior_eval", "60"),
        ("mcts_first_play_eval", "false"),
        ("mcts_widen_base", "6"),
        ("mcts_widen_factor", "2"),
        ("mcts_virtual_loss", "0.5"),
        ("mcts_leaf_probe", "2"),
    ] {
        p.set(name, value).expect("a known parameter");
    }
    let expected = SearchParams {
        aspiration: false,
        lmr: false,
        lmr_percent: 150,
        quiescence: false,
        quiescence_pressure: 3,
        quiescence_plies: 4,
        quiescence_evasions: true,
        rfp_margin: 75,
        futility_margin: 200,
        futility_depth: 2,
        lmp_base: 6,
        countermove: true,
        correction: 50,
        aspiration_delta: 45,
        soft_percent: 80,
        reduce_below: 48_001,
        prune_below: 30_000,
        mcts: MctsParams {
            exploration: 1.5,
            eval_scale: 250.0,
            first_play_reduction: 0.0,
            prior_temperature: 10_000.0,
            prior_eval: 60.0,
            first_play_eval: false,
            widen_base: 6.0,
            widen_factor: 2.0,
            virtual_loss: 0.5,
            leaf_probe: 2,
        },
        ..SearchParams::default()
    };
    assert_eq!(p, expected);
    assert!(p.set("lmr_percent", "-1").is_err());
    for bad in ["0", "-1", "NaN", "inf", "many"] {
        assert!(p.set("mcts_eval_scale", bad).is_err(), "{bad}");
    }
    for bad in ["0", "-30", "wide"] {
        assert!(p.set("aspiration_delta", bad).is_err(), "{bad}");
    }
    assert!(p.set("mcts_exploration", "-0.5").is_err());
    assert!(p.set("mcts_leaf_probe", "-1").is_err());
    assert!(p.set("weights", "1").is_err());
    assert_eq!(p, expected);
    // Evaluation weights by game type: only that type's set changes.
    let mlp = GameType::parse("Base+MLP").unwrap();
    let (general, base) = (
        p.weights.general().clone(),
        p.weights.for_type(GameType::parse("Base").unwrap()).clone(),
    );
    p.set("queen_ring[3]@Base+MLP", "77").unwrap();
    p.set("tempo@Base+MLP", "-5").unwrap();
    let w = p.weights.for_type(mlp);
    assert_eq!((w.queen_ring[3], w.tempo), (77, -5));
    assert_eq!(p.weights.general(), &general);
    assert_eq!(p.weights.for_type(GameType::parse("Base").unwrap()), &base);
    // A type without a set of its own gets one, copied from the general set.
    p.set("tempo@Base+M", "3").unwrap();
    assert_eq!(
        p.weights
            .own(GameType::parse("Base+M").unwrap())
            .unwrap()
            .tempo,
        3
    );
    assert_eq!(p.weights.general(), &general);
    let before = p.clone();
    for (name, value) in [
        ("nonsense@Base+MLP", "1"),
        ("queen_ring[9]@Base+MLP", "1"),
        ("queen_ring[3]@Chess", "1"),
        ("queen_ring[3]@Base+MLP", "x"),
    ] {
        assert!(p.set(name, value).is_err(), "{name}={value}");
    }
    assert_eq!(p, before);
}
