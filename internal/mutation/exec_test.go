package mutation

import (
	"testing"
	"time"
)

func TestStarved(t *testing.T) {
	for _, tc := range []struct {
		v    verdict
		want bool
	}{
		{verdict{status: TimedOut, elapsed: 10 * time.Second, cpu: time.Second}, true},      // kept waiting
		{verdict{status: TimedOut, elapsed: 10 * time.Second, cpu: 9 * time.Second}, false}, // a hang spins
		{verdict{status: Survived, elapsed: 10 * time.Second, cpu: time.Second}, false},
	} {
		if got := tc.v.starved(); got != tc.want {
			t.Errorf("%+v: starved %v, want %v", tc.v, got, tc.want)
		}
	}
}
