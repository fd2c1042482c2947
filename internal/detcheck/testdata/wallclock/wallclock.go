// Package wallclock reads and waits on the real clock in every way the
// wall-clock rule knows.
package wallclock

import (
	"time"
	clk "time"
)

func Uses() {
	_ = time.Now()                             // want wall-clock
	time.Sleep(time.Millisecond)               // want wall-clock
	_ = time.Since(time.Time{})                // want wall-clock
	_ = time.Until(time.Time{})                // want wall-clock
	_ = time.NewTimer(time.Second)             // want wall-clock
	_ = time.NewTicker(time.Second)            // want wall-clock
	_ = time.AfterFunc(time.Second, func() {}) // want wall-clock
	_ = time.Tick(time.Second)                 // want wall-clock
	after := time.After                        // want wall-clock
	now := clk.Now                             // want wall-clock
	_, _ = after, now
	_ = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // a fixed instant is fine
}
