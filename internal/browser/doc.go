// Package browser drives a headless Chromium for the tests of the HTML
// that durasim writes (the timeline of a run, the report site): it opens a
// page from a file URL with the network blocked, records every console
// error, uncaught exception and request that is not the page itself, and
// takes screenshots.
//
// # The browser
//
// It runs Debian's chromium (or the binary $DURASIM_CHROMIUM names) through
// github.com/chromedp/chromedp, headless, without a sandbox (tests run as
// root in CI), without GPU, QUIC, background networking, component updates
// or sync, with a fresh profile in the test's temporary directory. `bash
// .ci/run` installs chromium when it is missing. A test that cannot start
// the browser fails, it does not skip: the pages would go unchecked.
//
// # The network
//
// Every request the page makes is paused through the DevTools Fetch domain;
// the page's own file is let through and anything else fails and is
// reported by [Page.Problems]. The Network domain's log of requests is
// checked as well, for requests the Fetch domain does not see.
//
// # Layout
//
// [Page.SetViewport] resizes the tab (a [Phone] among others), and the
// layout checks measure the page in the browser rather than guess from its
// markup: [TextBoxes] is the box of every line of text a reader sees (and
// of SVG text a page marks), [Overlapping] finds two that overlap,
// [CheckOverflow] finds what is wider than the viewport outside a scroll
// box marked with [ScrollBoxAttr], and a box that scrolls sideways with no
// visible cue ([ScrollCueAttr]); [CheckDrawn] holds the text a canvas drew
// (as the page's script reports it) to the canvas and off its marks.
// [CheckLayout] runs the page's checks at once.
package browser
