package target

import (
	"strings"
	"testing"
)

func TestBackoffBound(t *testing.T) {
	for _, tc := range []struct {
		b      Backoff
		n      int
		lo, hi Time
	}{
		{Backoff{Base: Second, Exponent: 4, JitterPPM: 100_000}, 0, 0, 0},
		{Backoff{Base: Second, Exponent: 4, JitterPPM: 100_000}, 1, 900 * Millisecond, 1100 * Millisecond},
		{Backoff{Base: Second, Exponent: 4, JitterPPM: 100_000}, 2, 14_400 * Millisecond, 17_600 * Millisecond},
		{Backoff{Base: Second, Exponent: 4, Cap: 60 * Second, JitterPPM: 100_000}, 3, 54 * Second, 66 * Second},
		{Backoff{Base: 2 * Second, Exponent: 1}, 3, 6 * Second, 6 * Second},
		{Backoff{Base: Second, Exponent: 0}, 7, Second, Second},
		// Rounded inward to whole milliseconds: 1.0005s ± 0.1% is 999.4995ms to 1001.5005ms.
		{Backoff{Base: 1_000_500_000, Exponent: 1, JitterPPM: 1000}, 1, 1000 * Millisecond, 1001 * Millisecond},
		{Backoff{Base: 1_000_500_000, Exponent: 1}, 1, 1000 * Millisecond, 1000 * Millisecond},
		// No overflow without a cap: the delay stops at the largest span.
		{Backoff{Base: Second, Exponent: 16}, 1_000_000, 4611686018427000000, 4611686018427000000},
		{Backoff{Base: Second, Exponent: 3, Cap: 60 * Second}, 1000, 60 * Second, 60 * Second},
		{Backoff{}, 5, 0, 0},
	} {
		if lo, hi := tc.b.Bound(tc.n); lo != tc.lo || hi != tc.hi {
			t.Errorf("%+v.Bound(%d) = %d, %d; want %d, %d", tc.b, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	good := Policy{RescueAfter: 10 * Second, JobTimeout: 5 * Second, AvailableWithin: Second,
		Backoff: Backoff{Base: Second, Exponent: 4, JitterPPM: 100_000}, Snooze: AttemptGivenBack, Retry: RetryAddsAttempt,
		UniqueStates: []State{Available, Running, Completed}, CompleteNotRunning: CompletionReturnsRow}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good policy: %v", err)
	}
	if err := (Policy{}).Validate(); err != nil {
		t.Fatalf("the zero policy: %v", err)
	}
	for name, mod := range map[string]func(*Policy){
		"negative rescue-after": func(p *Policy) { p.RescueAfter = -1 },
		"negative lease":        func(p *Policy) { p.Lease = -Millisecond },
		"negative base":         func(p *Policy) { p.Backoff.Base = -1 },
		"exponent 17":           func(p *Policy) { p.Backoff.Exponent = 17 },
		"jitter above 100%":     func(p *Policy) { p.Backoff.JitterPPM = 1_000_001 },
		"unknown snooze count":  func(p *Policy) { p.Snooze = countCount },
		"unknown rescue count":  func(p *Policy) { p.Rescue.Attempt = 7 },
		"unknown retry rule":    func(p *Policy) { p.Retry = retryRuleCount },
		"unknown completion":    func(p *Policy) { p.CompleteNotRunning = completionCount },
		"unknown unique state":  func(p *Policy) { p.UniqueStates = append(p.UniqueStates, StateNone) },
		"unknown resent state":  func(p *Policy) { p.RetryResends = []State{stateCount} },
	} {
		p := good
		p.UniqueStates = append([]State(nil), good.UniqueStates...)
		mod(&p)
		err := p.Validate()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "policy: ") {
			t.Errorf("%s: %v, want a one-line policy error", name, err)
		}
	}
}
