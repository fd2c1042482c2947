package faults

import "github.com/durasim/durasim/model"

// RateLimited reports whether the provider answers 429 at now (virtual time
// since the run started): inside an explicit 429 burst, or inside a swarm
// burst that takes effect while the fault budget lasts.
func (in *Injector) RateLimited(now model.Time) bool {
	if in.stopped {
		return false
	}
	limited := false
	for i, p := range in.plan {
		if p.Kind == RateLimit && inBurst(now, p.At, p.For) {
			in.takePlanned(i)
			limited = true
		}
	}
	if in.swarm == nil || !in.swarm.Enabled(RateLimit) {
		return limited
	}
	for i, b := range in.swarm.Bursts {
		if inBurst(now, b.At, b.For) && in.takeBurst(i) {
			limited = true
		}
	}
	return limited
}

func inBurst(now, at, length model.Time) bool { return now >= at && now-at < length }

// takeBurst makes swarm burst i take effect, once, while the budget lasts.
func (in *Injector) takeBurst(i int) bool {
	if in.bursts[i] {
		return true
	}
	if in.total >= in.params.MaxFaults {
		return false
	}
	in.bursts[i] = true
	in.take(Fault{Kind: RateLimit, At: in.swarm.Bursts[i].At, For: in.swarm.Bursts[i].For})
	return true
}
