package scheduler

import (
	"math"
	"testing"
	"time"
)

func TestTimeString(t *testing.T) {
	tests := []struct {
		t    Time
		want string
	}{
		{0, "0ms"},
		{1500 * Millisecond, "1500ms"},
		{1_500_000, "1.5ms"},
		{1_234_567, "1.234ms"}, // microsecond precision: the 567ns are dropped
		{1_010_000, "1.01ms"},
		{Microsecond, "0.001ms"},
		{999, "0ms"}, // below a microsecond
		{Minute, "60000ms"},
		{-1_500_000, "-1.5ms"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tt.t), got, tt.want)
		}
	}
}

func TestAppendMillisAppends(t *testing.T) {
	got := string(Time(2_250_000).AppendMillis([]byte("at=")))
	if got != "at=2.25" {
		t.Fatalf("AppendMillis = %q, want %q", got, "at=2.25")
	}
}

func TestWallRoundTrip(t *testing.T) {
	for _, v := range []Time{0, 1, Millisecond, 90 * Minute, -Second} {
		if got := FromWall(v.Wall()); got != v {
			t.Errorf("FromWall(Wall(%d)) = %d", v, got)
		}
		if got := v.Duration(); got != time.Duration(v) {
			t.Errorf("Duration(%d) = %v", v, got)
		}
	}
	if !Time(0).Wall().Equal(Epoch) {
		t.Fatal("virtual 0 is not the Epoch")
	}
}

// Regression: AppendMillis negates t to print its magnitude, which overflows for
// the most negative Time and prints garbage ("--9223372036854.))+ms"); a
// negative span under a microsecond prints "-0ms".
func TestTimeStringExtremes(t *testing.T) {
	tests := []struct {
		t    Time
		want string
	}{
		{math.MinInt64, "-9223372036854.775ms"},
		{math.MaxInt64, "9223372036854.775ms"},
		{-999, "0ms"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tt.t), got, tt.want)
		}
	}
}
