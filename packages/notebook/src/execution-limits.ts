/**
 * The time limits of a notebook run when its instance sets none (`execution.cellTimeoutSeconds`,
 * `execution.timeoutSeconds`): verification uses them, and scoring gives a repair the time the fixed notebook gets.
 * A cell, then the whole notebook, is interrupted and then killed past them (`timeout`).
 */
export const DEFAULT_CELL_TIMEOUT_SECONDS = 120;
export const DEFAULT_TIMEOUT_SECONDS = 600;
