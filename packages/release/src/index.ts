// @junobench/release: named exports only (DESIGN.md §7).
export {};
