package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/durasim/durasim/asynqchaos"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/internal/redistest"
	"github.com/durasim/durasim/invariants"
)

// asynqFlags are the flags of `chaos -target asynq` and `mutants -target
// asynq`: the supervisor's, the databases, the workload's.
type asynqFlags struct {
	fs     *flag.FlagSet
	cf     *crashCommand
	tgt    *string
	design *string
}

func newAsynqFlags(verb string, c *asynqchaos.Config) *asynqFlags {
	fs := flag.NewFlagSet("durasim "+verb, flag.ContinueOnError)
	f := &asynqFlags{fs: fs}
	about := "the queue whose real client is run: asynq (asynq " + asynqchaos.Version() + " on redis-server)"
	if verb == "mutants" {
		about += "; asynq has no deterministic mode, so mutants runs each handler design as a real-process chaos run of its own, with -kills kills (9 by default, fewer than chaos's) and no freezes unless -pause-every and -zombies are given: about 70 s a design"
	}
	f.tgt = fs.String("target", "asynq", about)
	f.cf = crashFlags(fs, &c.Settings, &c.DB, crashHelp{db: "the handlers' database: durasim's effect and ledger tables in it are emptied",
		pause: "freeze (SIGSTOP) a child holding a task this often, until asynq's recoverer hands the task to another server (its lease is 30 s, taken back 30 s after it ends); 0 never",
		max:   workload.MaxKills})
	fs.StringVar(&c.Redis, "redis", os.Getenv(redistest.EnvAddr), "redis-server's address, a Unix socket's path or host:port (default $"+redistest.EnvAddr+"; unset: a throwaway redis-server started for the run and removed after it); asynq's queue \""+asynqchaos.Queue+"\" in it is emptied")
	designs := ""
	if verb == "chaos" {
		designs = asynqchaos.DesignNames()
	}
	f.design = workloadFlags(fs, &c.Config, workloadHelp{child: "one asynq Server", concurrency: "concurrency", perProcess: "asynq's Concurrency per server",
		steady: "children never killed (only frozen)", jobs: "more are fed while the kill phase lasts; some enqueued twice: asynq refuses the task ID",
		jobTimeout: "each task's asynq.Timeout (whole seconds)",
		maxFreeze:  "thaw a frozen child after this long even if no other server took its task (above 60s: asynq's lease and the recoverer's margin)",
		zombies:    "the kill phase lasts until this many frozen children had their task taken over", designs: designs})
	fs.DurationVar(&c.RetryDelay, "retry-delay", c.RetryDelay, "the servers' RetryDelayFunc: this delay after every error")
	fs.DurationVar(&c.DrainDelay, "drain-delay", c.DrainDelay, "wait this long after the kill phase before the drain's servers start (their recoverer then takes back every task of a dead server)")
	fs.StringVar(&c.TZ, "tz", c.TZ, "clock fault: the children's process time zone (their TZ); \"\" leaves it unset")
	fs.DurationVar(&c.ClientSkew, "client-skew", c.ClientSkew, "clock fault: the enqueuing client's clock this far off the servers' (the scheduled documents' ProcessAt computed by it)")
	fs.DurationVar(&c.ScheduleIn, "schedule-in", c.ScheduleIn, "every fourth document is scheduled this far ahead by the client's clock")
	return f
}

// parse reads the flags and checks -target and -design.
func (f *asynqFlags) parse(args []string, stderr io.Writer, c *asynqchaos.Config) error {
	if err := parseFlags(f.fs, args, stderr); err != nil {
		return err
	}
	if *f.tgt != "asynq" {
		return usageErr("unknown -target %q: want asynq", *f.tgt)
	}
	return workloadDesign(f.design, &c.Config)
}

// validate checks c; an empty -redis is a server started later.
func validateAsynq(c *asynqchaos.Config) error {
	v := *c
	if v.Redis == "" {
		v.Redis = "(throwaway)"
	}
	return v.Validate()
}

// withRedis runs fn with c.Redis set: a throwaway redis-server when none
// was given, stopped after fn.
func withRedis(c *asynqchaos.Config, fn func() (crashReport, error)) (crashReport, error) {
	if c.Redis != "" {
		return fn()
	}
	srv, err := redistest.Start()
	if err != nil {
		return nil, usageErr("no -redis and no $%s, and no throwaway redis-server: %v", redistest.EnvAddr, err)
	}
	defer srv.Stop()
	c.Redis = srv.Addr()
	defer func() { c.Redis = "" }()
	return fn()
}

// cmdChaosAsynq is `durasim chaos -target asynq`: asynq's own Server (in
// child processes, `durasim asynq-worker`) and Client on redis-server,
// SIGKILLed at named points of the handler and frozen past the lease,
// with the clock faults, then checked from the histories, asynq's
// Inspector and the database with the partial target checks.
func cmdChaosAsynq(args []string, stdout, stderr io.Writer) error {
	c := asynqchaos.DefaultConfig()
	f := newAsynqFlags("chaos", &c)
	if err := f.parse(args, stderr, &c); err != nil {
		return err
	}
	return f.cf.run(stdout, stderr, func() error { return validateAsynq(&c) }, func() (crashReport, error) {
		return withRedis(&c, func() (crashReport, error) { return asynqchaos.Run(context.Background(), c) })
	})
}

// cmdAsynqWorker is one child of a `chaos -target asynq` run: one asynq
// Server; the orchestrator starts it.
func cmdAsynqWorker(args []string, stdout, stderr io.Writer) error {
	return runCrashChild("durasim asynq-worker", &asynqchaos.ChildConfig{}, args, stderr)
}

// cmdMutantsAsynq is `durasim mutants -target asynq`. asynq runs only as
// real processes (no deterministic mode: see the README), so each
// handler design gets a chaos run of its own, with fewer kills than
// chaos's default and no freezes unless asked: a naive design is caught
// when a check of the handler's effects fails, a correct one passes when
// none does. A violation of asynq's own guarantees is listed apart.
func cmdMutantsAsynq(args []string, stdout, stderr io.Writer) error {
	c := asynqchaos.DefaultConfig()
	c.Kills, c.PauseEvery, c.Zombies = 9, 0, 0
	f := newAsynqFlags("mutants", &c)
	if err := f.parse(args, stderr, &c); err != nil {
		return err
	}
	mutants := &asynqMutants{c: c, out: stdout}
	err := f.cf.run(stdout, stderr, func() error { return validateAsynq(&c) }, func() (crashReport, error) {
		return withRedis(&c, func() (crashReport, error) { mutants.c.Redis = c.Redis; return mutants.run() })
	})
	return err
}

// asynqMutants runs every design and is the report of them all.
type asynqMutants struct {
	c    asynqchaos.Config
	out  io.Writer
	rows []string
	bad  bool
}

func (m *asynqMutants) run() (crashReport, error) {
	for _, d := range asynqchaos.Designs() {
		c := m.c
		c.Design = d
		rep, err := asynqchaos.Run(context.Background(), c)
		if err != nil {
			return nil, fmt.Errorf("design %s: %w", d, err)
		}
		var handler, queue []string
		for _, v := range rep.Violations {
			if invariants.TargetHandlerCheck(v.Invariant) {
				handler = append(handler, v.String())
			} else {
				queue = append(queue, v.Invariant)
			}
		}
		promise := "naive"
		if d.Correct() {
			promise = "correct"
		}
		total := rep.TotalKills()
		verdict := fmt.Sprintf("passes (%d kills)", total)
		switch {
		case d.Correct() && len(handler) > 0:
			m.bad, verdict = true, "FAILS (a correct design must pass): "+handler[0]
		case !d.Correct() && len(handler) == 0:
			m.bad, verdict = true, fmt.Sprintf("NOT CAUGHT in %d kills", total)
		case !d.Correct():
			verdict = fmt.Sprintf("caught (%d kills): %s", total, handler[0])
		}
		if len(queue) > 0 {
			verdict += fmt.Sprintf("; asynq's own findings: %d (%s)", len(queue), queue[0])
		}
		if rep.Dir != "" {
			verdict += "; histories in " + rep.Dir
		}
		m.rows = append(m.rows, fmt.Sprintf("%-20s %-8s %s", d, promise, verdict))
	}
	return m, nil
}

func (m *asynqMutants) Print(w io.Writer) {
	fmt.Fprintf(w, "target      asynq %s on redis-server (real processes: one chaos run per design, -kills %d each)\n\n", asynqchaos.Version(), m.c.Kills)
	fmt.Fprintf(w, "%-20s %-8s %s\n", "design", "promise", "verdict")
	for _, r := range m.rows {
		fmt.Fprintln(w, r)
	}
}

func (m *asynqMutants) OK() bool { return !m.bad }
