// @junobench/score: named exports only (DESIGN.md §7).
export {};
