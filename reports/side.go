package reports

import (
	"context"
	"fmt"
	"slices"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/goqitetarget"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The side-by-side report: River, goqite and asynq under one workload
// and one fault mix. River and goqite are deterministic targets: the
// report reads River's sweeps from the River report (BuildRiver) and
// runs goqite's the same way (sweepQueue, the same configuration and
// seeds); asynq runs only as real processes, so its figures come from a
// recording it names (side_asynq.go). What each queue guarantees is read
// from the policy it declares (target.Policy), what durasim found from
// the runs, and every sentence from the tables beside it (side_text.go;
// side_test.go holds them to each other).

// SideName is the side-by-side report's name: <lang>/queues-side-by-side.md.
const SideName = "queues-side-by-side"

// goqiteVersion is the goqite release go.mod pins (a test holds it
// there; goqitetarget.Version reads build information a test binary
// does not carry).
const goqiteVersion = "v0.4.0"

// Side is the side-by-side report's runs and data.
type Side struct {
	River *River // River's sweeps, settings and documented pattern
	// Goqite is goqite's settings, its declared policy and its sweeps, in
	// targetsim.Designs order, on River's configuration and seeds.
	Goqite       goqitetarget.Config
	GoqitePolicy target.Policy
	GoqiteSweeps []DesignSweep
	RiverPolicy  target.Policy // River's declared policy under the River report's settings
	// Asynq is the recording of asynq's chaos runs (AsynqFile).
	Asynq *AsynqRecord
	// Findings are what durasim found in each library, each with how it
	// is shown.
	Findings []Finding
}

// Finding is one thing durasim found in a library: the check that shows
// it, the seed and shrunk plan of the run that shows it (none for a
// real-process finding), the command that replays it, and the plain Go
// test against the library alone that reproduces it.
type Finding struct {
	Lib     string    // River, goqite, asynq
	What    [2]string // pt-BR, en
	Check   string    // the check a run broke ("" for a finding no check shows)
	Run     *targetsim.Result
	Config  targetsim.Config // the shrunk configuration (with Run)
	Replay  string           // the command that replays it (with Run)
	From    [2]string        // where the seed and plan come from, pt-BR and en
	Repro   string           // the plain Go test's name ("" none)
	Test    string           // without Repro: durasim's own test that shows it
	Module  string           // the directory of the module that holds it (or Test)
	Shown   bool             // the run broke Check (a finding with no run: literal, not shown)
	Missing string           // why it is not shown, when it is not
}

// Libraries are the libraries in the report's order.
var libraries = []string{"River", "goqite", "asynq"}

// BuildSide runs goqite's sweeps beside River's (from rv), re-runs the
// findings whose plans are recorded, and reads asynq's recording.
func BuildSide(ctx context.Context, rv *River) (*Side, error) {
	rec, err := recordedAsynq()
	if err != nil {
		return nil, err
	}
	s := &Side{River: rv, Goqite: goqitetarget.DefaultConfig(), Asynq: rec}
	q, err := goqitetarget.Open(ctx, goqitetarget.SQLite, "", s.Goqite)
	if err != nil {
		return nil, err
	}
	defer func() { _ = q.Close() }()
	s.GoqitePolicy = q.Policy()
	for _, d := range targetsim.Designs() {
		cfg := rv.Base
		cfg.Design = d
		correct := d.CorrectOn(s.GoqitePolicy)
		n := rv.Naive
		if correct {
			n = rv.Seeds
		}
		sw, err := sweepQueue(ctx, q, cfg, n, !correct)
		if err != nil {
			return nil, fmt.Errorf("side-by-side report, goqite, design %s: %w", d, err)
		}
		s.GoqiteSweeps = append(s.GoqiteSweeps, sw)
	}
	if err := s.findings(ctx, q); err != nil {
		return nil, err
	}
	return s, nil
}

// The plain Go tests' modules.
const (
	riverRepro  = "target/rivertarget/testdata/riverrepro"
	goqiteRepro = "target/goqitetarget/testdata/goqiterepro"
	asynqRepro  = "asynqchaos/testdata/asynqrepro"
)

// supersededPlan is River's finding of a third attempt past max_attempts
// 2, as the 1:2000 sweep found it (seed 270 and eight more) and as it
// was reduced by hand to one document and two workers: the report runs
// it again and shows the check it breaks.
const supersededPlan = "slow doc=1 attempt=1 for=16s; slow doc=1 attempt=2 for=4s; few-attempts doc=1 max=2"

// findings lists what durasim found in each library, running what it
// shows.
func (s *Side) findings(ctx context.Context, gq *goqitetarget.Queue) error {
	rv := s.River
	// River: the documented JobCompleteTx pattern, from River's sweep.
	doc := Finding{Lib: "River", What: [2]string{
		"JobCompleteTx devolve, sem erro, um job que não concluiu (outra tentativa já o tinha); o handler documentado commita o efeito, e a tentativa seguinte o escreve de novo",
		"JobCompleteTx returns, without an error, a job it did not complete (another attempt had it); the documented handler commits its effect, and the next attempt writes it again"},
		From:  [2]string{"varredura deste relatório", "this report's sweep"},
		Repro: "TestJobCompleteTxReturnsARowThatIsNotCompleted", Module: riverRepro}
	if sw := rv.sweepOf(targetsim.TxAsDocumented); sw != nil && sw.Shrunk != nil {
		doc.Check, doc.Run, doc.Config = sw.Check, sw.Shrunk.Result, sw.Shrunk.Config
		doc.Replay, doc.Shown = rv.replay(sw.Shrunk.Config, sw.Shrunk.Result.Seed), true
	} else {
		doc.Missing = "tx-as-documented was not caught"
	}
	s.Findings = append(s.Findings, doc)
	sup, err := s.supersededReport(ctx)
	if err != nil {
		return err
	}
	s.Findings = append(s.Findings, sup)
	// goqite: a superseded receive's delete, from goqite's sweep.
	stale := Finding{Lib: "goqite", What: [2]string{
		"o Delete de um receive superado apaga a mensagem que o receive seguinte segura, e um Delete de mensagem já apagada não devolve erro: o handler que confere só esse erro escreve o efeito duas vezes",
		"a superseded receive's Delete deletes the message the next receive holds, and a Delete of a message already gone returns no error: a handler that checks only that error writes its effect twice"},
		From:  [2]string{"varredura deste relatório", "this report's sweep"},
		Repro: "TestStaleDeleteTakesTheHoldersMessage", Module: goqiteRepro}
	if sw := s.goqiteSweep(targetsim.TxAsDocumented); sw.Shrunk != nil {
		stale.Check, stale.Run, stale.Config = sw.Check, sw.Shrunk.Result, sw.Shrunk.Config
		stale.Replay, stale.Shown = goqiteReplay(gq, sw.Shrunk.Config, sw.Shrunk.Result.Seed), true
	} else {
		stale.Missing = "tx-as-documented was not caught on goqite"
	}
	s.Findings = append(s.Findings, stale)
	clk, err := s.clockFinding(ctx, gq)
	if err != nil {
		return err
	}
	s.Findings = append(s.Findings, clk)
	// asynq: found by real processes, with no seed; a literal finding.
	s.Findings = append(s.Findings, Finding{Lib: "asynq", What: [2]string{
		"`Inspector.DeleteQueue(queue, true)` deixa as tarefas concluídas com retenção: a fila some da lista, mas o hash de cada tarefa fica e o seu ID continua tomado (enfileirá-lo de novo falha com `ErrTaskIDConflict`)",
		"`Inspector.DeleteQueue(queue, true)` leaves the tasks completed with a retention: the queue is no longer listed, but each task's hash stays and its ID stays taken (enqueueing it again fails with `ErrTaskIDConflict`)"},
		From:  [2]string{"processos reais (`durasim mutants -target asynq`), sem semente", "real processes (`durasim mutants -target asynq`), no seed"},
		Repro: "TestDeleteQueueKeepsCompletedTasks", Module: asynqRepro, Missing: "real processes: no run of this report"})
	return nil
}

// supersededReport re-runs River's recorded plan of a superseded
// attempt's report applied to the current attempt, past max_attempts.
func (s *Side) supersededReport(ctx context.Context) (Finding, error) {
	rv := s.River
	f := Finding{Lib: "River", What: [2]string{
		"o relatório de uma tentativa superada é aplicado à tentativa atual (JobSetStateIfRunning confere o estado `running`, não a tentativa), e um job com max_attempts 2 ganha uma terceira tentativa",
		"a superseded attempt's report is applied to the current attempt (JobSetStateIfRunning checks the `running` state, not the attempt), and a job with max_attempts 2 gets a third attempt"},
		From:  [2]string{"plano gravado (a varredura 1:2000 o acha na semente 270; reduzido à mão), rodado de novo aqui", "recorded plan (the 1:2000 sweep finds it at seed 270; reduced by hand), run again here"},
		Check: invariants.TargetAttempts, Repro: "TestSupersededAttemptReportPastMaxAttempts", Module: riverRepro}
	plan, err := targetsim.Vocabulary(rivertarget.System{}.Name()).Parse(supersededPlan)
	if err != nil {
		return f, fmt.Errorf("side-by-side report, River's recorded plan: %w", err)
	}
	cfg := rv.Base
	cfg.Docs, cfg.Workers, cfg.Swarm, cfg.Plan = 1, 2, false, plan
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rv.Queue)
	if err != nil {
		return f, err
	}
	defer func() { _ = q.Close() }()
	s.RiverPolicy = q.Policy()
	res, err := targetsim.Run(ctx, q, cfg, 1)
	if err != nil {
		return f, err
	}
	f.Run, f.Config, f.Replay = res, cfg, rv.replay(cfg, 1)
	f.Shown = slices.ContainsFunc(res.Violations, func(v invariants.Violation) bool { return v.Invariant == f.Check })
	if !f.Shown {
		f.Missing = "the plan broke no " + f.Check
	}
	return f, nil
}

// clockFinding is goqite's clock finding: the first seed on which a
// correct design's sweep broke goqite's target-consistency, run again
// and shrunk toward it; it holds when the shrunk plan keeps a clock skew.
func (s *Side) clockFinding(ctx context.Context, gq *goqitetarget.Queue) (Finding, error) {
	f := Finding{Lib: "goqite", Check: invariants.TargetConsistency, What: [2]string{
		"o goqite grava e compara os timeouts no relógio de quem chama: um worker com o relógio adiantado recebe uma mensagem que outro worker ainda segura antes do timeout",
		"goqite writes and compares timeouts on the caller's clock: a worker whose clock runs ahead receives a message another worker still holds, before its timeout"},
		From:  [2]string{"varredura deste relatório (falhas de relógio do swarm)", "this report's sweep (the swarm's clock faults)"},
		Repro: "TestClockAheadTakesAHeldMessage", Module: goqiteRepro}
	var design targetsim.Design
	var seed uint64
	for _, sw := range s.GoqiteSweeps {
		if !sw.Design.CorrectOn(s.GoqitePolicy) {
			continue
		}
		if seeds := sw.Queue[f.Check]; len(seeds) > 0 && (seed == 0 || seeds[0] < seed) {
			design, seed = sw.Design, seeds[0]
		}
	}
	if seed == 0 {
		f.Missing = "no correct design's seed broke " + f.Check
		return f, nil
	}
	cfg := s.River.Base
	cfg.Design = design
	res, err := targetsim.Run(ctx, gq, cfg, seed)
	if err != nil {
		return f, err
	}
	sh, err := targetsim.Shrink(ctx, gq, cfg, seed, res, f.Check)
	if err != nil {
		return f, err
	}
	f.Run, f.Config, f.Replay = sh.Result, sh.Config, goqiteReplay(gq, sh.Config, seed)
	f.Shown = skewed(sh.Config.Plan) && slices.ContainsFunc(sh.Result.Violations, func(v invariants.Violation) bool { return v.Invariant == f.Check })
	if !f.Shown {
		f.Missing = "the shrunk plan " + sh.Config.Plan.OneLine() + " has no clock skew"
	}
	return f, nil
}

// skewed reports whether a plan skews a worker's clock.
func skewed(p faults.Plan) bool {
	return slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind == faults.ClockAhead || f.Kind == faults.ClockBehind })
}

// goqiteReplay is the command that replays seed of cfg on goqite with
// the report's settings.
func goqiteReplay(q *goqitetarget.Queue, cfg targetsim.Config, seed uint64) string {
	args, err := goqitetarget.System{}.Args(q)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return targetsim.CommandLine(targetsim.DefaultCLI, "replay", q.Name(), args, cfg, seed)
}

func (s *Side) goqiteSweep(d targetsim.Design) DesignSweep {
	for _, sw := range s.GoqiteSweeps {
		if sw.Design == d {
			return sw
		}
	}
	return DesignSweep{Design: d}
}

// checks lists the report's checks: on each library, every correct
// design passes and every naive one is caught; every finding with a run
// shows its check.
func (s *Side) checks(l Lang) []reportCheck {
	var out []reportCheck
	for _, lib := range libraries {
		for _, d := range targetsim.Designs() {
			v, ok := s.verdict(lib, d)
			if !ok {
				continue
			}
			c := reportCheck{ok: v.correct == (v.caught == "")}
			if v.correct {
				c.says = fmt.Sprintf(l.t("no %s, %s (correta ali) passa", "on %s, %s (correct there) passes"), lib, code(d.String()))
				if !c.ok {
					c.got = v.check
				}
			} else {
				c.says = fmt.Sprintf(l.t("no %s, %s (ingênua ali) é pega", "on %s, %s (naive there) is caught"), lib, code(d.String()))
				if !c.ok {
					c.got = l.t("não foi pega", "not caught")
				}
			}
			out = append(out, c)
		}
	}
	for _, f := range s.Findings {
		if f.Check == "" {
			continue
		}
		out = append(out, reportCheck{says: fmt.Sprintf(l.t("o achado do %s reproduz %s", "%s's finding reproduces %s"), f.Lib, code(f.Check)), ok: f.Shown, got: f.Missing})
	}
	return out
}

// libVerdict is a design's verdict on one library.
type libVerdict struct {
	correct bool   // the design promises one effect per document there
	caught  string // "" passed; otherwise the check that caught it
	check   string // with caught: the same; for a correct design that failed
	seed    uint64 // the seed that caught it (deterministic libraries)
	ran     int    // seeds run (deterministic) or kills (asynq)
}

// verdict is design d's verdict on lib; ok is false where the library
// does not run the design.
func (s *Side) verdict(lib string, d targetsim.Design) (libVerdict, bool) {
	var sw DesignSweep
	var correct bool
	switch lib {
	case "River":
		p := s.River.sweepOf(d)
		if p == nil {
			return libVerdict{}, false
		}
		sw, correct = *p, d.Correct()
	case "goqite":
		sw, correct = s.goqiteSweep(d), d.CorrectOn(s.GoqitePolicy)
	case "asynq":
		for _, r := range s.Asynq.Runs {
			if r.design() == d {
				c := r.handlerCheck()
				return libVerdict{correct: d.Correct(), caught: c, check: c, ran: r.kills()}, true
			}
		}
		return libVerdict{}, false
	}
	v := libVerdict{correct: correct, ran: sw.Ran}
	if sw.Caught != nil {
		v.caught, v.check, v.seed = sw.Check, sw.Check, sw.Caught.Seed
	}
	return v, true
}

// Held counts the checks that held, and all of them.
func (s *Side) Held() (held, total int) { return heldOf(s.checks(En)) }

// Passed reports whether every check held.
func (s *Side) Passed() bool {
	held, total := s.Held()
	return held == total
}

// Name is the report's name.
func (s *Side) Name() string { return SideName }

// Title is the report's title in language l.
func (s *Side) Title(l Lang) string {
	return l.t("River, goqite e asynq lado a lado", "River, goqite and asynq side by side")
}

func (s *Side) sources() string { return "seed 003, 004" }

func (s *Side) arms() string {
	names := make([]string, len(libraries))
	for i, lib := range libraries {
		names[i] = code(lib)
	}
	return fmt.Sprint(names[0], " vs ", names[1], " vs ", names[2])
}
