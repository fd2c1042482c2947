//go:build !race

package mirror_test

// raceDetector: see race_on_test.go.
const raceDetector = false
