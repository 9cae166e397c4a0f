//! The learned evaluation's shipped weights (`learned::Weights`), written by
//! `tools/fit-evaluation --write`. Do not edit by hand.

use super::learned::Weights;

pub const CLASSIC: Weights = [
    // 23 for an empty board, then 23 for a full one.
    2, 10, -10, 35, 15, 1, -37, -8, -6, 35, 76, 90, -37, -82, -68, 14, 21, -49, 61, 5, -8, 4, 0, 71,
    3, -2, 95, 15, 5, -102, -16, -7, 95, 28, 21, -102, -13, -10, 10, 0, -29, 13, 6, -3, 5, -13,
];

pub const COLORWARS: Weights = [
    // 23 for an empty board, then 23 for a full one.
    175, 6, -8, 54, 60, 31, -73, -40, -18, 54, -9, -29, -73, -18, -15, 129, 2, -49, 128, 28, -43,
    47, -63, 205, 3, -2, 59, 16, 11, -63, -8, -8, 59, 4, -3, -63, -3, 2, 42, -9, -6, -28, 8, -5,
    44, -71,
];
