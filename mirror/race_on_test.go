//go:build race

package mirror_test

// raceDetector is true under -race. make test runs every mirror test
// without it (unit) and again with it (race); under it the tests that
// judge the mirror's comparisons, which run on one goroutine whatever the
// seed, shrink to a few seeds: what the detector looks for is the SQL
// drivers' and pools' goroutines, which a few seeds exercise as well as
// fifty, at ten times the cost per seed.
const raceDetector = true
