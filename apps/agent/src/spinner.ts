// A small spinner for the waits on the API: only on a terminal, so logs and pipes stay clean.

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

/** Runs `work` while drawing `label` with a spinner (or just runs it when not `enabled`). */
export type Spin = <T>(label: string, work: () => Promise<T>) => Promise<T>;

/** A spinner writing to `write` (stderr), animated only when `enabled` (stderr is a TTY). */
export function createSpinner(write: (text: string) => void, enabled: boolean): Spin {
  return async (label, work) => {
    if (!enabled) return work();
    let frame = 0;
    const draw = () => {
      write(`\r${frames[frame % frames.length] ?? ""} ${label}…`);
      frame++;
    };
    draw();
    const timer = setInterval(draw, 80);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      write("\r\x1b[2K");
    }
  };
}
