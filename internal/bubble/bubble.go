package bubble

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Runner runs functions in bubbles of its T. It is safe for concurrent
// use: each At is a bubble of its own.
type Runner struct{ t *testing.T }

// New is a Runner on a test's T (one that is not itself in a bubble).
func New(t *testing.T) *Runner { return &Runner{t: t} }

// epoch is where every bubble's clock starts.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// ErrBeforeEpoch is At's error for a time a bubble's clock cannot show:
// it starts at 2000-01-01 UTC and only moves forward.
var ErrBeforeEpoch = errors.New("bubble: a bubble's clock cannot show a time before 2000-01-01 UTC")

// At runs f in a new bubble whose clock reads at when f starts, and
// returns once f and every goroutine it started have returned. f must
// not block on anything outside the bubble for good.
func (r *Runner) At(at time.Time, f func()) error {
	d := at.Sub(epoch)
	if d < 0 {
		return ErrBeforeEpoch
	}
	synctest.Test(r.t, func(*testing.T) {
		if d > 0 {
			time.Sleep(d) // the only goroutine: the clock jumps
		}
		f()
	})
	return nil
}

var proc struct {
	once sync.Once
	r    *Runner
	err  error
}

// Process is a Runner for the whole process: its T is that of an
// in-process testing.M's one test, which never ends. The first call
// starts it. In a test binary it works too (the binary's flags are
// parsed already and M.Run reuses them; its -test.run cannot leave the
// test out, TestDeps matching everything), which lets the CLI's tests
// run the CLI in-process; a test that has its own T may use New.
func Process() (*Runner, error) {
	proc.once.Do(func() {
		got := make(chan *testing.T)
		m := testing.MainStart(TestDeps{}, []testing.InternalTest{{Name: "durasim", F: func(t *testing.T) {
			got <- t
			select {} // the bubbles' parent: it lives as long as the process
		}}}, nil, nil, nil)
		if !flag.Parsed() {
			// M.Run would parse the command line (the program's); it must
			// see none.
			if err := flag.CommandLine.Parse(nil); err != nil {
				proc.err = err
				return
			}
		}
		go m.Run()
		proc.r = &Runner{t: <-got}
	})
	return proc.r, proc.err
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

// TestDeps implements testing's testDeps with nothing behind it: no
// profiles, no fuzzing, no coverage (the interface is unexported, its
// methods are not).
type TestDeps struct{}

func (TestDeps) ImportPath() string                                       { return "" }
func (TestDeps) ModulePath() string                                       { return "" }
func (TestDeps) MatchString(pat, str string) (bool, error)                { return true, nil }
func (TestDeps) SetPanicOnExit0(bool)                                     {}
func (TestDeps) StartCPUProfile(io.Writer) error                          { return nil }
func (TestDeps) StopCPUProfile()                                          {}
func (TestDeps) StartTestLog(io.Writer)                                   {}
func (TestDeps) StopTestLog() error                                       { return nil }
func (TestDeps) WriteProfileTo(string, io.Writer, int) error              { return nil }
func (TestDeps) RunFuzzWorker(func(corpusEntry) error) error              { return nil }
func (TestDeps) CheckCorpus([]any, []reflect.Type) error                  { return nil }
func (TestDeps) ResetCoverage()                                           {}
func (TestDeps) SnapshotCoverage()                                        {}
func (TestDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) { return nil, nil }
func (TestDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return nil
}
func (TestDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
