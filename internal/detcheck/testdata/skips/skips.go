// Package skips is scanned; its tests and its testdata are not.
package skips

import "time"

func Uses() time.Time { return time.Now() } // want wall-clock
