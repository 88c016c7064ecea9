// @junobench/sources: named exports only (DESIGN.md §7).
export {};
