import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IntakePace, PACE_BURST_SEC } from '../src/live/intake-pace.js';

const test = suite('intake pace');

test('a call may run PACE_BURST_SEC ahead, then no faster than maxSpeed × real time', () => {
  const pace = new IntakePace(4);
  assert.is(pace.waitMs(0, 1000), 0, 'the clock starts at the first message');
  assert.is(pace.waitMs(PACE_BURST_SEC, 1000), 0);
  // 10 s of audio beyond the burst at 4× real time: due 2.5 s after the start.
  assert.is(pace.waitMs(PACE_BURST_SEC + 10, 1000), 2500);
  assert.is(pace.waitMs(PACE_BURST_SEC + 10, 2500), 1000);
  assert.is(pace.waitMs(PACE_BURST_SEC + 10, 3500), 0);
  assert.is(pace.waitMs(PACE_BURST_SEC + 10, 9000), 0, 'a client slower than the pace never waits');
});

test.run();
