package target

import "testing"

// A worker's skews add up once in force, follow its restarts and reach
// no actor that is not a worker; the zone counts its transitions.
func TestClockPlan(t *testing.T) {
	p := ClockPlan{Skews: []Skew{{Worker: 1, From: 2 * Second, By: 3 * Second}, {Worker: -1, From: 0, By: -Second}},
		ZoneBehind: 3 * 3600 * Second, DST: []Shift{{At: 10 * Second, By: 3600 * Second}}}
	for _, c := range []struct {
		actor string
		now   Time
		want  Time
	}{
		{"w1", Second, -Second}, {"w1", 2 * Second, 2 * Second}, {"w1.2", 5 * Second, 2 * Second},
		{"w0", 5 * Second, -Second}, {"rescuer", 5 * Second, 0}, {"client", 5 * Second, 0}, {"w", 5 * Second, 0},
	} {
		if got := p.Offset(c.actor, c.now); got != c.want {
			t.Errorf("Offset(%s, %s) = %s, want %s", c.actor, FormatSeconds(c.now), FormatSeconds(got), FormatSeconds(c.want))
		}
	}
	if got, want := p.Zone(9*Second), -3*3600*Second; got != want {
		t.Errorf("Zone before the transition = %s, want %s", FormatSeconds(got), FormatSeconds(want))
	}
	if got, want := p.Zone(10*Second), -2*3600*Second; got != want {
		t.Errorf("Zone after the transition = %s, want %s", FormatSeconds(got), FormatSeconds(want))
	}
	if (ClockPlan{}).Empty() != true || p.Empty() {
		t.Error("Empty")
	}
}
