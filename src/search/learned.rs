//! The learned evaluation of the alpha-beta player: a linear function of cheap bitboard
//! features, tapered between the opening and the end by how full the board is, with weights
//! fitted to game results (logistic regression, "Texel tuning": `tools/fit-evaluation`).
//!
//! Every feature is a population count of a few bitboard operations, so the learned
//! evaluation costs about what the hand-made one does, and alpha-beta keeps its depth.

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::rules::{Burst, Rules};

/// How many features a position has (`features`).
pub const FEATURES: usize = 23;
/// The weights: `FEATURES` for an empty board, then `FEATURES` for a full one, in
/// thousandths of a logit (the evaluation is the log-odds of winning, times 1,000).
pub type Weights = [i32; 2 * FEATURES];

/// The features' names, in order (the fitting tool and the docs print them).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "bias (the move)",
    "orbs (mover)",
    "orbs (opponent)",
    "corner cells (mover)",
    "edge cells (mover)",
    "inner cells (mover)",
    "corner cells (opponent)",
    "edge cells (opponent)",
    "inner cells (opponent)",
    "loaded corners (mover)",
    "loaded edges (mover)",
    "loaded inner cells (mover)",
    "loaded corners (opponent)",
    "loaded edges (opponent)",
    "loaded inner cells (opponent)",
    "opponent's loaded cells next to the mover's",
    "mover's loaded cells next to the opponent's",
    "mover's unloaded cells next to the opponent's loaded",
    "opponent's unloaded cells next to the mover's loaded",
    "mover's cells with no opponent next to them",
    "opponent's cells with no mover next to them",
    "empty cells next to the mover's",
    "empty cells next to the opponent's",
];

/// The cells next to any of `m`.
#[inline(always)]
pub fn around<B: Bits>(geo: &Geometry<B>, m: B) -> B {
    m.shl(1) & geo.not_first_col
        | m.shr(1) & geo.not_last_col
        | m.shl(geo.width) & geo.all
        | m.shr(geo.width)
}

/// The cells holding their capacity (one more orb bursts them).
#[inline(always)]
pub fn loaded<B: Bits>(geo: &Geometry<B>, pos: &Position<B>) -> B {
    let [c0, c1, c2] = pos.c;
    // count >= 1 in corners, >= 2 on edges, >= 3 inside.
    let ge1 = c0 | c1 | c2;
    let ge2 = c1 | c2;
    let ge3 = c2 | (c1 & c0);
    (geo.corner & ge1) | (geo.edge & ge2) | (geo.inner & ge3)
}

/// The features of a two-player position, from the point of view of the player to move.
pub fn features<B: Bits>(geo: &Geometry<B>, pos: &Position<B>) -> [i32; FEATURES] {
    let me = pos.to_move as usize & 1;
    let (mine, theirs) = (pos.own[me], pos.own[1 - me]);
    let full = loaded(geo, pos);
    let (lm, lt) = (full & mine, full & theirs);
    let (near_mine, near_theirs) = (around(geo, mine), around(geo, theirs));
    let (near_lm, near_lt) = (around(geo, lm), around(geo, lt));
    let empty = geo.all & !pos.occupied();
    let n = |b: B| b.count() as i32;
    [
        1,
        pos.orbs_in(mine) as i32,
        pos.orbs_in(theirs) as i32,
        n(mine & geo.corner),
        n(mine & geo.edge),
        n(mine & geo.inner),
        n(theirs & geo.corner),
        n(theirs & geo.edge),
        n(theirs & geo.inner),
        n(lm & geo.corner),
        n(lm & geo.edge),
        n(lm & geo.inner),
        n(lt & geo.corner),
        n(lt & geo.edge),
        n(lt & geo.inner),
        n(lt & near_lm),
        n(lm & near_lt),
        n(mine & !full & near_lt),
        n(theirs & !full & near_lm),
        n(mine & !near_theirs),
        n(theirs & !near_mine),
        n(empty & near_mine),
        n(empty & near_theirs),
    ]
}

/// The learned evaluation with `weights`: thousandths of the log-odds that the player to move
/// wins.
#[inline]
pub fn learned_evaluate<B: Bits>(geo: &Geometry<B>, pos: &Position<B>, weights: &Weights) -> i32 {
    let f = features(geo, pos);
    let cells = geo.cells as i64;
    let full = pos.occupied().count() as i64;
    let (mut opening, mut end) = (0i64, 0i64);
    for (i, &x) in f.iter().enumerate() {
        opening += i64::from(x) * i64::from(weights[i]);
        end += i64::from(x) * i64::from(weights[FEATURES + i]);
    }
    ((opening * (cells - full) + end * full) / cells.max(1)) as i32
}

/// The shipped weights for a rule set: the classic ones for subtracting bursts, the Color
/// Wars ones for emptying bursts (the burst decides how a cascade goes; the opening matters
/// for a few moves only).
pub fn shipped(rules: Rules) -> &'static Weights {
    match rules.burst {
        Burst::Subtract => &super::learned_weights::CLASSIC,
        Burst::Empty => &super::learned_weights::COLORWARS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::AnyGame;
    use crate::notation::parse_position;

    fn game(text: &str) -> (Geometry<u64>, Position<u64>) {
        let AnyGame::W1(g) = AnyGame::from_setup(&parse_position(text).unwrap()).unwrap() else {
            panic!("a small board")
        };
        (*g.geo(), *g.pos())
    }

    #[test]
    fn features_of_a_position_counted_by_hand() {
        // a: 1 orb in the corner a1 and 3 in the centre b2 (both loaded); b: 1 in the corner
        // c1 and 2 on the edge c2 (both loaded). Around a's cells: b1, a2, c2, b3; around b's:
        // b1, c1, b2, c2, c3 (so c2 is b's loaded cell next to a's, b2 a's next to b's).
        let (geo, pos) = game("3x3 classic 2 1a.1b/.3a2b/... a ab - 6");
        let f = features(&geo, &pos);
        assert_eq!(
            f,
            [1, 4, 3, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 3, 2]
        );
        // The opponent's view swaps every pair of features.
        let (_, theirs) = game("3x3 classic 2 1a.1b/.3a2b/... b ab - 6");
        let g = features(&geo, &theirs);
        for (i, j) in [
            (1, 2),
            (3, 6),
            (9, 12),
            (15, 16),
            (17, 18),
            (19, 20),
            (21, 22),
        ] {
            assert_eq!((f[i], f[j]), (g[j], g[i]), "features {i} and {j}");
        }
    }

    #[test]
    fn the_evaluation_tapers_from_the_empty_to_the_full_board_weights() {
        let (geo, pos) = game("3x3 classic 2 1a.1b/.3a2b/... a ab - 6");
        let f = features(&geo, &pos);
        // Four of nine cells are taken: 5/9 of the empty-board weights, 4/9 of the full.
        let mut w: Weights = [0; 2 * FEATURES];
        w[1] = 900; // the mover's orbs, on an empty board
        w[FEATURES + 2] = -900; // the opponent's, on a full one
        let expected = (900 * f[1] * 5 - 900 * f[2] * 4) / 9;
        assert_eq!(learned_evaluate(&geo, &pos, &w), expected);
        assert_eq!(learned_evaluate(&geo, &pos, &[0; 2 * FEATURES]), 0);
    }

    #[test]
    fn the_shipped_weights_are_fitted_and_prefer_more_orbs_and_cells() {
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            let w = shipped(rules);
            assert!(w.iter().any(|&x| x != 0), "{rules:?} has no weights");
        }
        // A mover with a second cell more than the opponent is better off, in both rule sets.
        let (geo, a_to_move) = game("4x4 classic 2 1a1a../..../..../...1b a ab - 3");
        let (_, b_to_move) = game("4x4 classic 2 1a1a../..../..../...1b b ab - 3");
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            let w = shipped(rules);
            let (ahead, behind) = (
                learned_evaluate(&geo, &a_to_move, w),
                learned_evaluate(&geo, &b_to_move, w),
            );
            assert!(ahead > behind, "{rules:?}: {ahead} <= {behind}");
        }
    }
}
