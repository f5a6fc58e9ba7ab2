/** Node's timers hold at most this (about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay a timer can hold: a longer one waits as long as a timer can, which is as good as forever. */
export const timerMs = (ms: number): number => Math.min(ms, MAX_TIMER_MS);
