package model

// Accessors only the tests read: no run, report or checker needs them, so
// they are not part of the package (nor of what the sweep must reach).

// EffectCount is how many effects were applied for the stage of key,
// counted in the effects' log.
func (s *System) EffectCount(key string, st Stage) int {
	n := 0
	for i := range s.consumer.effects.len() {
		if r := s.outbox.rows.at(int(s.consumer.effects.at(i).event - 1)); r.key == key && r.stage == st {
			n++
		}
	}
	return n
}

// BreakerState returns the breaker's current state.
func (s *System) BreakerState() BreakerState { return s.breaker.state }

// Design returns the design (correct or naive variant) under test.
func (s *System) Design() *Design { return s.design }
