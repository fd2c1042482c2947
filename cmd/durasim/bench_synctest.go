package main

import (
	"errors"
	"flag"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/internal/bubble"
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
// testDeps with nothing behind it (bubble.TestDeps; the interface is unexported, its methods are not;
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
	m := testing.MainStart(bubble.TestDeps{}, []testing.InternalTest{{Name: "synctest", F: func(t *testing.T) {
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
