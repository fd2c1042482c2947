package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a sweep's progress bar: seeds done, seeds/s and the time
// left, on stderr when stderr is a terminal; nothing otherwise (CI logs,
// pipes, files, tests).
type progress struct{ bar *progressbar.ProgressBar }

// minProgressSeeds is the smallest sweep worth a bar.
const minProgressSeeds = 100

func newProgress(stderr io.Writer, seeds int) *progress {
	f, ok := stderr.(*os.File)
	if !ok || seeds < minProgressSeeds || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(seeds,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("seeds"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("seeds"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)}
}

func (p *progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
