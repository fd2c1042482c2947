// Package bubble runs a function in a fresh testing/synctest bubble whose
// clock reads a chosen time: the way durasim owns the clock of a library
// that reads time.Now itself (goqite). Inside the bubble the time package
// is fake; a bubble with one goroutine that sleeps jumps its clock at
// once, so [Runner.At] costs a goroutine, not real time.
//
// synctest.Test needs a *testing.T. A test passes its own ([New]); a
// program that is not a test (durasim's CLI) gets one from [Process]: an
// in-process testing.M (testing.MainStart, with [TestDeps] behind it)
// whose one test hands its T out and then waits until the process exits.
// testing.MainStart is documented as internal to go test and "may change
// signature from release to release": this is written against Go 1.26.
package bubble
