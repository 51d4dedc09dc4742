/** Running clocks counting down in the page. Fray sends a running clock's `deadline` (and a
 * paused one's `remaining_ms`); the page takes what is left when the answer came, by the
 * viewer's wall clock, and counts down from then by the browser's monotonic clock. */

export interface Countdown {
  element: HTMLElement;
  remainingMs: number;
  receivedAt: number;
}

// Each part of the page (the clocks, the prompts) replaces its own countdowns.
const groups = new Map<string, Countdown[]>();
let timer: number | undefined;

export function formatMs(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

function tick(): void {
  const now = performance.now();
  for (const c of [...groups.values()].flat()) {
    c.element.textContent = formatMs(c.remainingMs - (now - c.receivedAt));
  }
}

/** Count these down from now on (the ones `group` counted before are dropped). */
export function countDown(countdowns: Countdown[], group = "clocks"): void {
  groups.set(group, countdowns);
  tick();
  const any = [...groups.values()].some((g) => g.length > 0);
  if (any && timer === undefined) timer = window.setInterval(tick, 250);
  if (!any && timer !== undefined) {
    window.clearInterval(timer);
    timer = undefined;
  }
}
