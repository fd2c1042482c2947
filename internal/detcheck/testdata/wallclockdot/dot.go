// Package wallclockdot reaches time.Now through a dot import.
package wallclockdot

import . "time"

func Uses() Duration {
	return Since(Now().Add(Second)) // want wall-clock wall-clock
}
