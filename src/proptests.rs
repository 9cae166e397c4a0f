//! Property-based tests: the notation parser on arbitrary and near-valid text, and play / undo
//! on random boards of every storage width.
//!
//! Case counts and game lengths are bounded so that the whole `cargo test` stays quick in a
//! debug build; the big boards get few cases.

use proptest::prelude::*;

use crate::error::Error;
use crate::game::AnyGame;
use crate::notation::{cell_name, format_position, parse_cell, parse_position};
use crate::rules::{Burst, Config, Opening, Rules};

/// The four rule combinations: `colorwars`, `classic`, `drop3+subtract`, `none+empty`.
fn rules() -> impl Strategy<Value = Rules> {
    prop_oneof![
        Just(Rules::COLORWARS),
        Just(Rules::CLASSIC),
        Just(Rules {
            opening: Opening::Drop3,
            burst: Burst::Subtract,
        }),
        Just(Rules {
            opening: Opening::None,
            burst: Burst::Empty,
        }),
    ]
}

/// A board and its players: sides from `sides`, 2 to 8 players (at most one per cell), any
/// first player.
fn config(sides: impl Strategy<Value = i64> + Clone) -> impl Strategy<Value = Config> {
    (sides.clone(), sides, 2i64..=8, rules(), any::<u8>()).prop_map(|(w, h, p, r, f)| {
        let players = p.min(w * h);
        Config::new(w, h, players, r, i64::from(f) % players).expect("a valid configuration")
    })
}

/// Everything a position determines (the first player is not part of the notation).
#[derive(Debug, PartialEq)]
struct State {
    size: (usize, usize, usize, Rules),
    counts: Vec<u8>,
    owners: Vec<i8>,
    to_move: usize,
    moved: u8,
    out: u8,
    ply: u32,
    winner: Option<usize>,
    legal: Vec<usize>,
}

fn state(g: &AnyGame) -> State {
    let cfg = g.cfg();
    State {
        size: (cfg.width, cfg.height, cfg.players, cfg.rules),
        counts: g.counts(),
        owners: g.owners(),
        to_move: g.to_move(),
        moved: g.moved(),
        out: g.out(),
        ply: g.ply(),
        winner: g.winner(),
        legal: g.legal_moves(),
    }
}

/// Reads a game from notation: parsed, then validated.
fn read(text: &str) -> crate::Result<AnyGame> {
    AnyGame::from_setup(&parse_position(text)?)
}

/// A game's notation reads back to the same game, and writes the same text again.
fn assert_round_trip(g: &AnyGame) -> Result<(), TestCaseError> {
    let text = format_position(g);
    let back = read(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
    prop_assert_eq!(state(&back), state(g), "{}", text);
    prop_assert_eq!(format_position(&back), text);
    Ok(())
}

/// Plays up to `choices.len()` moves (each picks among the legal moves), checking at every
/// step that illegal and off-board cells change nothing and that the notation round-trips;
/// then pops every move and checks that each earlier position comes back exactly.
fn play_and_undo(cfg: Config, choices: &[usize]) -> Result<(), TestCaseError> {
    let mut g = AnyGame::new(cfg);
    let cells = cfg.cells() as i64;
    let mut seen = vec![format_position(&g)];
    let mut played = Vec::new();
    for (k, &choice) in choices.iter().enumerate() {
        let before = format_position(&g);
        assert_round_trip(&g)?;
        let legal = g.legal_moves();
        // Off the board, and (when there is one) a cell of the board that is not legal.
        let mut bad = vec![
            -1,
            cells,
            cells + (choice % 1000) as i64,
            i64::MIN,
            i64::MAX,
        ];
        let illegal: Vec<usize> = (0..cfg.cells()).filter(|c| !legal.contains(c)).collect();
        if !illegal.is_empty() {
            bad.push(illegal[choice.rotate_left(17) % illegal.len()] as i64);
        }
        for cell in bad {
            let err = g.play(cell).expect_err("an illegal move is refused");
            prop_assert!(
                matches!(
                    err,
                    Error::InvalidMove(_) | Error::IllegalMove { .. } | Error::GameOver { .. }
                ),
                "{cell}: {err:?}"
            );
            prop_assert_eq!(&format_position(&g), &before, "after refusing {}", cell);
        }
        if legal.is_empty() {
            prop_assert!(g.winner().is_some(), "no legal move in a live game");
            break;
        }
        let m = legal[choice % legal.len()];
        prop_assert!(g.check(m as i64).is_ok());
        g.play(m as i64)
            .map_err(|e| TestCaseError::fail(format!("move {k} ({m}): {e}")))?;
        played.push(m);
        seen.push(format_position(&g));
    }
    assert_round_trip(&g)?;
    prop_assert_eq!(g.moves(), played.clone());
    while let Some(m) = g.pop() {
        prop_assert_eq!(Some(m), played.pop());
        seen.pop();
        prop_assert_eq!(
            &format_position(&g),
            seen.last().expect("the start is kept")
        );
    }
    prop_assert_eq!(seen.len(), 1);
    prop_assert_eq!(g.ply(), 0);
    Ok(())
}

/// One edit of a text, as a list of characters: `(kind, at, span, replacement)`.
type Edit = (u8, usize, usize, char);

/// Characters that notation is made of, and now and then any character at all.
fn notation_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select("0123456789abcdefghijx./+- \t".chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    (0u8..7, any::<usize>(), 1usize..6, notation_char())
}

/// Applies an edit: replace, insert, delete a span, swap two fields, drop or repeat a field,
/// or nudge a digit or a letter to its neighbour (the near-misses most likely to validate).
fn apply(text: &str, (kind, at, span, c): Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let n = chars.len().max(1);
    let i = at % n;
    match kind {
        0 if !chars.is_empty() => chars[i] = c,
        1 => chars.insert(at % (chars.len() + 1), c),
        2 if !chars.is_empty() => {
            chars.drain(i..(i + span).min(chars.len()));
        }
        3..=5 => {
            let mut fields: Vec<String> = text.split(' ').map(String::from).collect();
            let f = at % fields.len();
            let g = (at / 7 + span) % fields.len();
            match kind {
                3 => fields.swap(f, g),
                4 => {
                    fields.remove(f);
                }
                _ => {
                    let copy = fields[f].clone();
                    fields.insert(g, copy);
                }
            }
            return fields.join(" ");
        }
        _ => {
            // Nudge the first digit or letter at or after `i`.
            if let Some(j) = (0..chars.len())
                .map(|k| (i + k) % chars.len())
                .find(|&j| chars[j].is_ascii_alphanumeric())
            {
                let ch = chars[j] as u8;
                let up = span % 2 == 0;
                chars[j] = match (ch, up) {
                    (b'9', true) | (b'z', true) => ch as char,
                    (b'0', false) | (b'a', false) => ch as char,
                    (_, true) => (ch + 1) as char,
                    (_, false) => (ch - 1) as char,
                };
            }
        }
    }
    chars.into_iter().collect()
}

/// A position reached by random play on a random board, in notation.
fn played(cfg: Config, choices: &[usize]) -> AnyGame {
    let mut g = AnyGame::new(cfg);
    for &choice in choices {
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        g.play(legal[choice % legal.len()] as i64)
            .expect("a legal move");
    }
    g
}

/// Notation whose every field is well formed (now and then a letter one beyond the players),
/// on boards of 2 to 4 cells a side: most texts reach the position checks of `from_setup`
/// (most positions drawn this way are impossible, and must be refused without a panic).
fn small_notation() -> impl Strategy<Value = String> {
    (2usize..=4, 2usize..=4, 2u8..=4, rules()).prop_flat_map(|(w, h, players, rules)| {
        let letter = |p: u8| char::from(b'a' + p);
        let player = prop_oneof![39 => 0..players, 1 => Just(players)];
        let cell = prop_oneof![
            3 => Just(".".to_string()),
            2 => (0u8..=8, player.clone()).prop_map(move |(n, p)| format!("{n}{}", letter(p))),
        ];
        let letters = prop_oneof![19 => Just(players), 1 => Just(players + 1)];
        let set = (any::<u8>(), letters).prop_map(move |(m, letters)| {
            let s: String = (0..letters)
                .filter(|p| m & (1 << p) != 0)
                .map(letter)
                .collect();
            if s.is_empty() {
                "-".into()
            } else {
                s
            }
        });
        let rows = prop::collection::vec(cell, w * h).prop_map(move |cells| {
            let rows: Vec<String> = cells.chunks(w).map(|r| r.concat()).collect();
            rows.join("/")
        });
        (rows, player, set.clone(), set, 0u32..12).prop_map(
            move |(board, to_move, moved, out, ply)| {
                let (rules, to_move) = (rules.name(), letter(to_move));
                format!("{w}x{h} {rules} {players} {board} {to_move} {moved} {out} {ply}")
            },
        )
    })
}

/// Parsing never panics; whatever parses and validates writes back to text that reads as the
/// same game.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    if let Ok(g) = read(text) {
        assert_round_trip(&g)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn any_text_parses_or_is_refused(text in any::<String>()) {
        check_text(&text)?;
    }

    #[test]
    fn notation_like_text_parses_or_is_refused(
        text in prop_oneof![
            // Fields of about the right shape.
            "[1-3]?[0-9]x[1-3]?[0-9] (colorwars|classic|drop3\\+subtract|none\\+empty|[a-z0-9+]{0,16}) \
             [0-9] [0-9a-j./]{0,40} [a-j-]{1,2} [a-j-]{1,9} [a-j-]{1,9} [0-9]{1,4}",
            // Every field well formed on a small board: nearly all reach the position checks.
            small_notation(),
        ]
    ) {
        check_text(&text)?;
    }

    #[test]
    fn cell_names_parse_or_are_refused(
        name in prop_oneof![any::<String>(), "[a-zA-Z]{0,4}[0-9]{0,8}"],
        w in 2usize..=32,
        h in 2usize..=32,
    ) {
        if let Ok(c) = parse_cell(&name, w, h) {
            prop_assert!(c < w * h);
            prop_assert_eq!(parse_cell(&cell_name(c, w), w, h), Ok(c));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn near_valid_notation_parses_or_is_refused(
        cfg in config(2i64..=9),
        choices in prop::collection::vec(any::<usize>(), 0..60),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let g = played(cfg, &choices);
        assert_round_trip(&g)?;
        let mut text = format_position(&g);
        for e in edits {
            text = apply(&text, e);
            check_text(&text)?;
        }
    }

    #[test]
    fn small_boards_play_and_undo(
        cfg in config(2i64..=8),
        choices in prop::collection::vec(any::<usize>(), 0..200),
    ) {
        play_and_undo(cfg, &choices)?;
    }
}

proptest! {
    // Boards of two, four and sixteen words: few cases, short games.
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn large_boards_play_and_undo(
        cfg in config(prop_oneof![9i64..=16, 17i64..=32]),
        choices in prop::collection::vec(any::<usize>(), 0..120),
    ) {
        play_and_undo(cfg, &choices)?;
    }
}

/// Boards of every storage width (17x16 and 32x32 among them) under every rule combination,
/// whatever the random draws above.
#[test]
fn every_width_and_rule_set_plays_and_undoes() {
    use proptest::strategy::ValueTree;

    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (w, h, players) in [(17, 16, 2), (32, 32, 8), (16, 16, 3), (8, 16, 4), (2, 2, 2)] {
        for r in ["colorwars", "classic", "drop3+subtract", "none+empty"] {
            let cfg = Config::new(w, h, players, Rules::parse(r).unwrap(), 0).unwrap();
            let choices = prop::collection::vec(any::<usize>(), 40)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            play_and_undo(cfg, &choices).unwrap();
        }
    }
}
