package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/sim"
)

// bubblePacer waits with the time package: inside a synctest bubble, time
// is virtual and jumps when every goroutine of the bubble is blocked.
type bubblePacer struct{ exited chan struct{} }

func (p *bubblePacer) spawn(f func()) {
	go func() {
		defer func() { p.exited <- struct{}{} }()
		f()
	}()
}

func (p *bubblePacer) sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

func (p *bubblePacer) wait(kick chan struct{}, d time.Duration) {
	if d <= 0 {
		<-kick
		return
	}
	t := time.NewTimer(d)
	select {
	case <-kick:
		t.Stop()
	case <-t.C:
	}
}

func (p *bubblePacer) kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// runSynctestSeed runs one seed inside a synctest bubble. It must be
// called with a *testing.T that is not itself in a bubble.
func runSynctestSeed(t *testing.T, cfg sim.Config, seed uint64, reuse *goReuse) goResult {
	var res goResult
	synctest.Test(t, func(*testing.T) {
		p := &bubblePacer{exited: make(chan struct{}, cfg.Workers+3)}
		// clock.New() is the production clock: it reads the time package,
		// which the bubble fakes (it starts at 2000-01-01 00:00 UTC).
		g := newGoRun(cfg, seed, clock.New(), p, reuse)
		g.start()
		for range cfg.Workers + 3 {
			<-p.exited
		}
		res = g.result()
	})
	return res
}

// withT hands f a *testing.T. synctest.Test needs one; `go test` makes it,
// and so must the CLI.
type withT func(f func(t *testing.T)) error

// cliTestingT runs f as the only test of an in-process testing.M, the
// way the code `go test` generates does: testing.MainStart with a
// hand-written testDeps (the interface is unexported, its methods are not;
// testing.RunTests alone runs nothing, because only M.Run parses -test.cpu
// into the list of GOMAXPROCS values to run the tests with). M.Run's
// "PASS" goes to os.DevNull. MainStart is documented as internal to
// `go test` and "may change signature from release to release": this is
// written against Go 1.26.
func cliTestingT(f func(t *testing.T)) error {
	if testing.Testing() {
		return errors.New("inside a test binary, pass the test's own *testing.T")
	}
	ok := false
	m := testing.MainStart(cliTestDeps{}, []testing.InternalTest{{Name: "synctest", F: func(t *testing.T) {
		f(t)
		ok = !t.Failed()
	}}}, nil, nil, nil)
	if !flag.Parsed() {
		// M.Run would parse the command line (ours); it must see none.
		if err := flag.CommandLine.Parse(nil); err != nil {
			return err
		}
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	saved := os.Stdout
	os.Stdout = devNull
	code := m.Run()
	os.Stdout = saved
	if code != 0 || !ok {
		return errors.New("the synctest runner failed")
	}
	return nil
}

// corpusEntry is the testing package's alias of internal/fuzz.CorpusEntry.
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

// cliTestDeps implements testing's testDeps with nothing behind it: no
// profiles, no fuzzing, no coverage.
type cliTestDeps struct{}

func (cliTestDeps) ImportPath() string                                       { return "" }
func (cliTestDeps) ModulePath() string                                       { return "" }
func (cliTestDeps) MatchString(pat, str string) (bool, error)                { return true, nil }
func (cliTestDeps) SetPanicOnExit0(bool)                                     {}
func (cliTestDeps) StartCPUProfile(io.Writer) error                          { return nil }
func (cliTestDeps) StopCPUProfile()                                          {}
func (cliTestDeps) StartTestLog(io.Writer)                                   {}
func (cliTestDeps) StopTestLog() error                                       { return nil }
func (cliTestDeps) WriteProfileTo(string, io.Writer, int) error              { return nil }
func (cliTestDeps) RunFuzzWorker(func(corpusEntry) error) error              { return nil }
func (cliTestDeps) CheckCorpus([]any, []reflect.Type) error                  { return nil }
func (cliTestDeps) ResetCoverage()                                           {}
func (cliTestDeps) SnapshotCoverage()                                        {}
func (cliTestDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) { return nil, nil }
func (cliTestDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return nil
}
func (cliTestDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
