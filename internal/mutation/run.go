package mutation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Options configure a mutation run.
type Options struct {
	Pkg     string         // the mutated package, as the go command accepts it
	Killer  []string       // a main package and its arguments (a lone ";" between runs of it): exit 0 passes, non-zero kills
	Filter  *regexp.Regexp // keep only mutants whose "file:line:col id" matches (nil: all)
	Skip    *regexp.Regexp // then leave out those whose "file:line:col id" matches (nil: none)
	Jobs    int            // mutants built and run at once
	Timeout Timeout
	Dir     string // scratch directory: emptied first
	// PrivateCache builds in a build cache of its own under Dir: a
	// mutant built alone leaves several megabytes of objects no later
	// build reuses, which the user's cache would keep for days (with
	// hundreds of mutants, gigabytes). The first build fills it (half a
	// minute of CPU); with Schemata few mutants are built alone.
	PrivateCache bool
	// Schemata runs the mutants that can be switched at run time from one
	// build of the killer (see schema.go); the others, and all of them
	// without it, get a build each.
	Schemata    bool
	Equivalents []Argued
	Progress    io.Writer       // progress lines (nil: none)
	Context     context.Context // stops the run when done (nil: never)
}

// Outcome is what became of one mutant.
type Outcome struct {
	Mutant *Mutant
	Status Status
	Detail string        // the killer's verdict line, or the compile error
	Reason string        // why it is equivalent (Status Equivalent)
	Build  time.Duration // building the mutated killer (0: it ran in the schema)
	Run    time.Duration // running it
	Schema bool          // run in the schema build
}

// Report is a whole run.
type Report struct {
	ImportPath string
	Dir        string // the package's directory, as printed
	Killer     []string
	Jobs       int
	Reached    int // statements of the package the unmutated killer reaches
	Statements int
	Baseline   time.Duration // the unmutated killer's time
	Schema     time.Duration // building the schema, and its own time with no mutant on (0: none)
	SchemaRun  time.Duration
	Timeout    time.Duration
	Elapsed    time.Duration
	Enumerated int       // mutants before the filter
	Outcomes   []Outcome // the selected mutants, in enumeration order
	Stale      []Argued
	Misjudged  []Argued // argued equivalent, yet killed
}

// ErrNoneSelected is Run's error when Filter and Skip leave no mutant:
// nothing to run is a mistake in the filter, not a perfect score.
var ErrNoneSelected = errors.New("no mutant selected")

// Run enumerates, filters, classifies and runs the mutants of o.Pkg.
func Run(o Options) (*Report, error) {
	start := time.Now()
	s, err := prepare(o)
	if err != nil {
		return nil, err
	}
	r := &Report{ImportPath: s.pkg.ImportPath, Dir: s.pkg.Rel(), Killer: o.Killer, Jobs: o.Jobs, Enumerated: len(s.all)}
	if err := s.measure(r); err != nil {
		return nil, err
	}
	r.Outcomes = s.classify()
	if o.Schemata {
		if err := s.buildSchema(r); err != nil {
			return nil, err
		}
	}
	s.runAll(r)
	if err := s.ctx.Err(); err != nil {
		return nil, fmt.Errorf("stopped: %v", err)
	}
	applyEquivalents(r, s.all, o.Equivalents)
	r.Elapsed = time.Since(start)
	return r, nil
}

// session is the state Run shares with its workers.
type session struct {
	o       Options
	ctx     context.Context
	pkg     *Package
	checker *Checker
	all     []*Mutant
	sel     []*Mutant
	env     []string // the go command's environment: the private build cache
	prof    *Profile
	plain   verdict // the unmutated killer's run
	schema  *schema
	bin     string // the schema's killer
	timeout time.Duration
	mu      sync.Mutex
	done    int
	counts  [StatusCount]int
	toRun   int
	started time.Time
}

// prepare loads and enumerates the package.
func prepare(o Options) (*session, error) {
	if len(o.Killer) == 0 || o.Jobs < 1 {
		return nil, errors.New("need a killer and at least one job")
	}
	if err := os.RemoveAll(o.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	s := &session{o: o, ctx: o.Context}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if o.PrivateCache {
		cache, err := filepath.Abs(filepath.Join(o.Dir, "gocache"))
		if err != nil {
			return nil, err
		}
		s.env = []string{"GOCACHE=" + cache}
	}
	var err error
	if s.pkg, err = LoadPackage(o.Pkg); err != nil {
		return nil, err
	}
	s.progress("enumerating the mutants of %s", s.pkg.ImportPath)
	if s.checker, err = NewChecker(s.pkg, s.env); err != nil {
		return nil, err
	}
	info, err := s.checker.Info()
	if err != nil {
		return nil, err
	}
	s.all = Enumerate(s.pkg, info)
	for _, m := range s.all {
		id := m.Where() + " " + m.ID()
		if (o.Filter == nil || o.Filter.MatchString(id)) && (o.Skip == nil || !o.Skip.MatchString(id)) {
			s.sel = append(s.sel, m)
		}
	}
	if len(s.sel) == 0 && len(s.all) > 0 {
		// Nothing to run is a mistake of -run or -skip, not a perfect score.
		return nil, fmt.Errorf("%w: -run and -skip select none of the %d mutants of %s (they match \"file:line:col id\", as -list prints it)", ErrNoneSelected, len(s.all), s.pkg.ImportPath)
	}
	return s, nil
}

// measure runs the unmutated killer twice: with coverage (which mutants it
// can reach) and plain (its time, for the timeout). Both must pass.
func (s *session) measure(r *Report) error {
	s.progress("coverage run of the unmutated killer")
	cov, err := Cover(CoverOptions{Main: s.o.Killer[0], Args: s.o.Killer[1:], Pkgs: []string{s.pkg.ImportPath}, Dir: s.o.Dir, Env: s.env})
	if err != nil {
		return err
	}
	if cov.ExitCode != 0 {
		return fmt.Errorf("the killer fails on the unmutated package (exit %d): %s", cov.ExitCode, firstLine(cov.Output))
	}
	s.prof = cov.Profile
	r.Reached, r.Statements = cov.Profile.Statements(s.pkg.ImportPath)
	bin := filepath.Join(s.o.Dir, "killer")
	if err := goRun(s.env, buildArgs(bin, "", s.o.Killer[0])...); err != nil {
		return err
	}
	s.progress("timing the unmutated killer")
	s.plain = s.execKiller(bin, nil, 0)
	if s.plain.status != Survived {
		return fmt.Errorf("the unmutated killer does not pass (%s): %s", s.plain.status, s.plain.detail)
	}
	r.Baseline, s.timeout = s.plain.elapsed, s.o.Timeout.For(s.plain.elapsed)
	r.Timeout = s.timeout
	return nil
}

// classify type-checks the selected mutants and finds those the killer
// never reaches; the rest are left Survived, to run.
func (s *session) classify() []Outcome {
	s.progress("type-checking %d mutants", len(s.sel))
	out := make([]Outcome, len(s.sel))
	for i, m := range s.sel {
		out[i].Mutant = m
		switch err := s.checker.Check(m); {
		case err != nil:
			out[i].Status, out[i].Detail = NotViable, err.Error()
		case !s.reached(m):
			out[i].Status = NotCovered
		default:
			out[i].Status = Survived
			s.toRun++
		}
	}
	return out
}

// reached decides coverage by the innermost block holding the first probe
// (the change, then its enclosing statements) that lies in any block.
func (s *session) reached(m *Mutant) bool {
	if m.outside {
		return true
	}
	for _, p := range m.probes {
		if ok, found := s.prof.Reached(s.pkg.ImportPath, m.File, p.line, p.col); found {
			return ok
		}
	}
	return false
}

// runAll builds and runs every mutant left to run, o.Jobs at a time.
func (s *session) runAll(r *Report) {
	s.started = time.Now()
	s.progress("running %d mutants, %d at a time, timeout %s each", s.toRun, s.o.Jobs, s.timeout.Round(time.Millisecond))
	next := make(chan int)
	var wg sync.WaitGroup
	for range s.o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s.runOne(i, &r.Outcomes[i])
			}
		}()
	}
	for i := range r.Outcomes {
		if s.ctx.Err() != nil {
			break
		}
		if r.Outcomes[i].Status == Survived {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}

// runOne runs a mutant in the schema build, or builds the killer with
// the mutated file swapped in by an overlay and runs it.
func (s *session) runOne(i int, out *Outcome) {
	m := out.Mutant
	bin, env := s.bin, []string(nil)
	if id, ok := s.schema.id(m); ok {
		env, out.Schema = []string{schemaEnv + "=" + strconv.Itoa(int(id))}, true
	} else {
		dir := filepath.Join(s.o.Dir, fmt.Sprintf("m%05d", i))
		defer os.RemoveAll(dir)
		t := time.Now()
		src := m.Apply(s.pkg.Src[s.pkg.index(m.File)])
		var err error
		bin, err = s.buildOverlay(dir, map[string][]byte{filepath.Join(s.pkg.Dir, m.File): src})
		if out.Build = time.Since(t); err != nil {
			out.Status, out.Detail = NotViable, err.Error()
			s.tick(out.Status)
			return
		}
	}
	v := s.execKiller(bin, env, s.timeout)
	out.Status, out.Detail, out.Run = v.status, v.detail, v.elapsed
	s.tick(out.Status)
}

// tick counts a finished mutant and prints progress now and then.
func (s *session) tick(st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	s.counts[st]++
	if s.done%25 != 0 && s.done != s.toRun {
		return
	}
	el := time.Since(s.started)
	left := time.Duration(float64(el) / float64(s.done) * float64(s.toRun-s.done))
	s.progressLocked("[%d/%d] %s, about %s left: killed %d, crashed %d, timed out %d, survived %d",
		s.done, s.toRun, el.Round(time.Second), left.Round(time.Second), s.counts[Killed], s.counts[Crashed], s.counts[TimedOut], s.counts[Survived])
}

func (s *session) progress(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.progressLocked(format, args...)
}

func (s *session) progressLocked(format string, args ...any) {
	if s.o.Progress != nil {
		fmt.Fprintf(s.o.Progress, "mutation: "+format+"\n", args...)
	}
}
