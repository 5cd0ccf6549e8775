// Play: one step per interval (shorter at a higher speed) until the last step.

const BASE_INTERVAL_MS = 1300; // one step at 1x

/**
 * @param {{step: () => number, total: () => number, advance: () => void,
 *          restart: () => void, changed: (playing: boolean) => void}} stage
 */
export function createPlayer(stage) {
  let playing = false;
  let speed = 1;
  let timer = 0;

  function tick() {
    timer = 0;
    if (!playing) return;
    if (stage.step() >= stage.total()) {
      pause();
      return;
    }
    stage.advance();
    if (stage.step() >= stage.total()) pause();
    else timer = setTimeout(tick, BASE_INTERVAL_MS / speed);
  }

  function play() {
    if (!stage.total() || playing) return;
    playing = true;
    if (stage.step() >= stage.total()) stage.restart();
    stage.changed(true);
    clearTimeout(timer);
    timer = setTimeout(tick, stage.step() === 0 ? 350 : 150);
  }

  function pause() {
    if (!playing && !timer) return;
    playing = false;
    clearTimeout(timer);
    timer = 0;
    stage.changed(false);
  }

  return {
    play,
    pause,
    toggle: () => (playing ? pause() : play()),
    get playing() {
      return playing;
    },
    get speed() {
      return speed;
    },
    /** @param {number} v steps per BASE_INTERVAL_MS (0 or NaN: 1) */
    setSpeed(v) {
      speed = v || 1;
      if (playing) {
        clearTimeout(timer);
        timer = setTimeout(tick, BASE_INTERVAL_MS / speed);
      }
    },
  };
}
