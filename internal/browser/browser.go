package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Viewport is the size of the window pages are opened in, and of their
// screenshots.
const Viewport, ViewportH = 1280, 800

// Browser is one headless Chromium process.
type Browser struct {
	ctx context.Context
}

// ExecPath finds the browser: $DURASIM_CHROMIUM, else chromium (Debian),
// chromium-browser or google-chrome on PATH.
func ExecPath() (string, error) {
	if p := os.Getenv("DURASIM_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH: install Debian's chromium package (bash .ci/run does) or set DURASIM_CHROMIUM")
}

// Start launches the browser; it stops when the test ends. It fails the
// test when the browser cannot start.
func Start(tb testing.TB) *Browser {
	tb.Helper()
	path, err := ExecPath()
	if err != nil {
		tb.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(filepath.Join(tb.TempDir(), "profile")),
		chromedp.WindowSize(Viewport, ViewportH),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("allow-file-access-from-files", false),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	return &Browser{ctx: ctx}
}

// Page is one tab holding one file.
type Page struct {
	ctx      context.Context
	close    context.CancelFunc
	mu       sync.Mutex
	URL      string // the file loaded (guarded by mu)
	problems []string
}

// Open loads file (a path) in a new tab of the viewport's size, with the
// network blocked, and waits for its load event.
func (b *Browser) Open(tb testing.TB, file string) *Page {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	tb.Cleanup(cancel)
	p := &Page{ctx: ctx, close: cancel}
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		tb.Fatal(err)
	}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		tb.Fatal(err)
	}
	err := chromedp.Do(ctx,
		call(fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}),
		call(network.Enable, network.EnableParams{}),
		call(runtime.Enable, struct{}{}),
		call(log.Enable, struct{}{}),
		chromedp.EmulateViewport(Viewport, ViewportH),
	)
	if err != nil {
		tb.Fatal(err)
	}
	p.Load(tb, file)
	return p
}

// Load replaces the tab's page by file, with what was seen so far
// forgotten, and waits for its load event (cheaper than a new tab).
func (p *Page) Load(tb testing.TB, file string) {
	tb.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		tb.Fatal(err)
	}
	p.mu.Lock()
	p.URL = (&url.URL{Scheme: "file", Path: abs}).String()
	p.problems = nil
	p.mu.Unlock()
	p.Do(tb, chromedp.Navigate(p.URL))
}

func (p *Page) url() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.URL
}

// call is a protocol command as a chromedp action.
func call[P, R any](cmd cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cmd, params)
		return err
	})
}

// listen records what the page must not do, and lets only the page's own
// file through the network. It runs on the tab's reading goroutine, so the
// commands that answer a paused request go on another.
func (p *Page) listen(ev any) {
	switch e := ev.(type) {
	case *fetch.EventRequestPaused:
		if e.Request.URL == p.url() {
			go answer(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
			return
		}
		p.problem("request outside the file: %s", e.Request.URL)
		go answer(p.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	case *network.EventRequestWillBeSent:
		if e.Request.URL != p.url() {
			p.problem("request outside the file: %s", e.Request.URL)
		}
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			p.problem("console %s: %s", e.Type, argsText(e.Args))
		}
	case *runtime.EventExceptionThrown:
		p.problem("uncaught exception: %s", exceptionText(e.ExceptionDetails))
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			p.problem("browser log error (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	}
}

// answer sends a command that answers a paused request. An error means the
// tab is closing: the request goes nowhere either way.
func answer[P any](ctx context.Context, cmd cdp.Command[P, cdp.Empty], params P) {
	_, _ = chromedp.Call(ctx, cmd, params)
}

func (p *Page) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.problems, msg) { // Fetch and Network both see a request
		p.problems = append(p.problems, msg)
	}
}

func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch {
		case len(a.Value) > 0:
			parts[i] = string(a.Value)
		default:
			parts[i] = a.Description
		}
	}
	return strings.Join(parts, " ")
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "(no details)"
	}
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		text += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s at %s:%d:%d", text, d.URL, d.LineNumber, d.ColumnNumber)
}

// Close closes the tab (else it closes when the test ends).
func (p *Page) Close() { p.close() }

// Problems lists the console errors, uncaught exceptions and requests
// outside the file seen so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// CheckClean fails the test for every problem seen so far.
func (p *Page) CheckClean(tb testing.TB) {
	tb.Helper()
	for _, msg := range p.Problems() {
		tb.Errorf("%s: %s", filepath.Base(p.url()), msg)
	}
}

// timeout bounds one step on a page: generous, for a loaded machine;
// only a hung page reaches it.
const timeout = 60 * time.Second

// Do runs actions on the page, failing the test on an error.
func (p *Page) Do(tb testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Fatalf("%s: %v", filepath.Base(p.url()), err)
	}
}

// Eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value into a T.
func Eval[T any](tb testing.TB, p *Page, expr string) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("%s: evaluating %s: %v", filepath.Base(p.url()), expr, err)
	}
	return v
}

// Screenshot captures the viewport as PNG, writes it to path and returns
// the image.
func (p *Page) Screenshot(tb testing.TB, path string) image.Image {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("%s: screenshot: %v", filepath.Base(p.url()), err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		tb.Fatalf("%s: screenshot is not a PNG: %v", filepath.Base(p.url()), err)
	}
	return img
}

// Blank says why img looks blank, or "" when it does not: a page that
// drew something has several colours and some pixels that are not the
// background (the most common colour).
func Blank(img image.Image) string {
	counts := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	total, top := 0, 0
	//det:sorted (only the largest count is kept: the order does not matter)
	for _, n := range counts {
		total += n
		top = max(top, n)
	}
	switch {
	case len(counts) < 8:
		return fmt.Sprintf("only %d colours", len(counts))
	case total-top < total/100:
		return fmt.Sprintf("%d of %d pixels differ from the background", total-top, total)
	}
	return ""
}
