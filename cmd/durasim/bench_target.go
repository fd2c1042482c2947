package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// `durasim bench -target river`: the target sweep's seeds/s beside its
// floor, the same calls of the queue's seam issued by a bare loop. A
// first, untimed pass runs each seed through a recording queue (every
// Reset, call, transaction and Snapshot, with its arguments, its answer
// and the random draws the queue took); the floor then replays those
// calls in order against the queue, with no scheduler, faults, trace or
// oracle: what the queue's SQL costs alone. The replay is held to the
// recorded answers once before the timed rounds, so the floor is the
// sweep's calls and not others.

// targetBenchReport is `durasim bench -target river -json`'s one object.
type targetBenchReport struct {
	Target      string  `json:"target"`
	Workload    string  `json:"workload"`
	Seeds       int     `json:"seeds"`
	Rounds      int     `json:"rounds"`
	SeedsPerSec float64 `json:"seeds_per_sec"`       // the sweep's (median round)
	FloorPerSec float64 `json:"floor_seeds_per_sec"` // the replayed calls' (median round)
	// Ratio is how many times a seed of the sweep costs its calls alone.
	Ratio        float64   `json:"sweep_cost_vs_floor"`
	CallsPerSeed float64   `json:"calls_per_seed"` // seam calls of a seed, Reset and Snapshot included
	SweepRounds  []float64 `json:"sweep_round_seeds_per_sec"`
	FloorRounds  []float64 `json:"floor_round_seeds_per_sec"`
	ReplayAgrees bool      `json:"replay_agrees"` // every replayed call answered as in the sweep
	GOMAXPROCS   int       `json:"gomaxprocs"`
}

func benchTargetCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("durasim bench", flag.ContinueOnError)
	sys := fs.String("target", "", "the queue to measure: "+(rivertarget.System{}).Name())
	design := fs.String("design", targetsim.DefaultConfig().Design.String(), "handler design of the sweep")
	seeds := fs.Int("seeds", 200, "seeds 1..N of the standard target sweep, 1 to 100000")
	rounds := fs.Int("rounds", 5, "rounds of sweep and floor, interleaved, 1 to 100; each reports its median round")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *sys != (rivertarget.System{}).Name() {
		return usageErr("unknown -target %q for bench: want %s", *sys, (rivertarget.System{}).Name())
	}
	if *seeds < 1 || *seeds > 100_000 || *rounds < 1 || *rounds > 100 {
		return usageErr("-seeds must be 1 to 100000 and -rounds 1 to 100 (got %d, %d)", *seeds, *rounds)
	}
	cfg := targetsim.DefaultConfig()
	d, err := targetsim.LookupDesign(*design)
	if err != nil {
		return usageErr("%v", err)
	}
	cfg.Design = d
	ctx := context.Background()
	q, err := rivertarget.Open(ctx, rivertarget.SQLite, "", rivertarget.DefaultConfig())
	if err != nil {
		return err
	}
	defer q.Close()
	rep, err := benchTarget(ctx, q, cfg, *seeds, *rounds)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	rep.write(stdout)
	return nil
}

func benchTarget(ctx context.Context, q target.Queue, cfg targetsim.Config, seeds, rounds int) (*targetBenchReport, error) {
	defer sweepGC(seeds)()
	logs := make([]*callLog, seeds)
	calls := 0
	for s := range seeds {
		logs[s] = &callLog{}
		if _, err := targetsim.Run(ctx, &recQueue{Queue: q, log: logs[s]}, cfg, uint64(s+1)); err != nil {
			return nil, err
		}
		calls += len(logs[s].calls)
	}
	rep := &targetBenchReport{Target: fmt.Sprintf("%s %s on %s", q.Name(), q.Version(), q.Backend()), Seeds: seeds, Rounds: rounds,
		Workload: fmt.Sprintf("targetsim.DefaultConfig(): %d workers, %d docs, %d tenants, design %s, swarm faults on; seeds 1..%d",
			cfg.Workers, cfg.Docs, cfg.Tenants, cfg.Design, seeds),
		CallsPerSeed: float64(calls) / float64(seeds), GOMAXPROCS: runtime.GOMAXPROCS(0), ReplayAgrees: true}
	for _, l := range logs {
		if err := l.replay(ctx, q, true); err != nil {
			rep.ReplayAgrees = false
			return nil, fmt.Errorf("the floor's replay disagrees with the sweep: %w", err)
		}
	}
	for range rounds {
		timer := startTimer()
		for s := range seeds {
			if _, err := targetsim.Run(ctx, q, cfg, uint64(s+1)); err != nil {
				return nil, err
			}
		}
		rep.SweepRounds = append(rep.SweepRounds, float64(seeds)/timer.stop().wall.Seconds())
		timer = startTimer()
		for _, l := range logs {
			if err := l.replay(ctx, q, false); err != nil {
				return nil, err
			}
		}
		rep.FloorRounds = append(rep.FloorRounds, float64(seeds)/timer.stop().wall.Seconds())
	}
	rep.SeedsPerSec, rep.FloorPerSec = median(rep.SweepRounds), median(rep.FloorRounds)
	rep.Ratio = ratio(rep.FloorPerSec, rep.SeedsPerSec)
	return rep, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (rep *targetBenchReport) write(w io.Writer) {
	fmt.Fprintf(w, "target      %s\nworkload    %s\n", rep.Target, rep.Workload)
	fmt.Fprintf(w, "sweep       %.1f seeds/s\n", rep.SeedsPerSec)
	fmt.Fprintf(w, "floor       %.1f seeds/s (the sweep's %.0f calls per seed, replayed by a bare loop: no scheduler, faults, trace or oracle)\n",
		rep.FloorPerSec, rep.CallsPerSeed)
	fmt.Fprintf(w, "ratio       %.2fx the floor's cost per seed\n", rep.Ratio)
	fmt.Fprintf(w, "rounds      %d interleaved; sweep %s, floor %s seeds/s (figures: the median)\n", rep.Rounds, rates(rep.SweepRounds), rates(rep.FloorRounds))
}

func rates(xs []float64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%.1f", x)
	}
	return b.String()
}

// callKind names a recorded call of the seam.
type callKind int

const (
	callReset callKind = iota
	callInsert
	callFetch
	callReport
	callStuck
	callRescue
	callSchedule
	callRetry
	callBegin
	callEffect
	callComplete
	callTxInsert
	callCommit
	callRollback
	callSnapshot
)

// call is one recorded call: who made it, its arguments and its answer.
type call struct {
	kind  callKind
	actor string
	tx    int // the transaction's number (its Begin's), for the Tx calls
	now   target.Time
	max   int
	ins   target.InsertReq
	job   target.Job
	rep   target.Report
	jobs  []target.Job
	id    target.JobID
	eff   target.Effect
	out   any // the answer, compared when the replay checks
	err   string
}

// callLog is one seed's calls, in the order the sweep made them.
type callLog struct {
	calls []call
	draws []int64 // the random draws the queue took after its Reset, in order
	txs   int
}

func (l *callLog) add(c call, out any, err error) {
	c.out = out
	if err != nil {
		c.err = err.Error()
	}
	l.calls = append(l.calls, c)
}

// recRand records the draws of the queue's random stream.
type recRand struct {
	r     target.Rand
	draws *[]int64
}

func (r recRand) Int64N(n int64) int64 {
	v := r.r.Int64N(n)
	*r.draws = append(*r.draws, v)
	return v
}

// replayRand gives the recorded draws back.
type replayRand struct {
	draws []int64
	n     int
	bad   bool
}

func (r *replayRand) Int64N(n int64) int64 {
	if r.n >= len(r.draws) {
		r.bad = true
		return 0
	}
	v := r.draws[r.n]
	r.n++
	return v
}

// recQueue is a queue whose connections record every call.
type recQueue struct {
	target.Queue
	log *callLog
}

func (q *recQueue) Reset(ctx context.Context, rand target.Rand) error {
	q.log.calls = append(q.log.calls, call{kind: callReset})
	return q.Queue.Reset(ctx, recRand{r: rand, draws: &q.log.draws})
}

func (q *recQueue) Snapshot(ctx context.Context) (target.Snapshot, error) {
	s, err := q.Queue.Snapshot(ctx)
	q.log.add(call{kind: callSnapshot}, s, err)
	return s, err
}

func (q *recQueue) Conn(actor string) target.Conn {
	return &recConn{c: q.Queue.Conn(actor), actor: actor, log: q.log}
}

type recConn struct {
	c     target.Conn
	actor string
	log   *callLog
}

func (c *recConn) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	out, err := c.c.Insert(ctx, now, r)
	c.log.add(call{kind: callInsert, actor: c.actor, now: now, ins: r}, out, err)
	return out, err
}

func (c *recConn) Fetch(ctx context.Context, now target.Time, max int) ([]target.Job, error) {
	out, err := c.c.Fetch(ctx, now, max)
	c.log.add(call{kind: callFetch, actor: c.actor, now: now, max: max}, out, err)
	return out, err
}

func (c *recConn) Report(ctx context.Context, now target.Time, j target.Job, r target.Report) (target.Reported, error) {
	out, err := c.c.Report(ctx, now, j, r)
	c.log.add(call{kind: callReport, actor: c.actor, now: now, job: j, rep: r}, out, err)
	return out, err
}

func (c *recConn) Stuck(ctx context.Context, now target.Time) ([]target.Job, error) {
	out, err := c.c.Stuck(ctx, now)
	c.log.add(call{kind: callStuck, actor: c.actor, now: now}, out, err)
	return out, err
}

func (c *recConn) Rescue(ctx context.Context, now target.Time, stuck []target.Job) ([]target.Rescued, error) {
	out, err := c.c.Rescue(ctx, now, stuck)
	c.log.add(call{kind: callRescue, actor: c.actor, now: now, jobs: slices.Clone(stuck)}, out, err)
	return out, err
}

func (c *recConn) Schedule(ctx context.Context, now target.Time) ([]target.Rescued, error) {
	out, err := c.c.Schedule(ctx, now)
	c.log.add(call{kind: callSchedule, actor: c.actor, now: now}, out, err)
	return out, err
}

func (c *recConn) Retry(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	out, err := c.c.Retry(ctx, now, id)
	c.log.add(call{kind: callRetry, actor: c.actor, now: now, id: id}, out, err)
	return out, err
}

func (c *recConn) Begin(ctx context.Context) (target.Tx, error) {
	tx, err := c.c.Begin(ctx)
	c.log.txs++
	n := c.log.txs
	c.log.add(call{kind: callBegin, actor: c.actor, tx: n}, nil, err)
	if err != nil {
		return nil, err
	}
	return &recTx{tx: tx, n: n, actor: c.actor, log: c.log}, nil
}

type recTx struct {
	tx    target.Tx
	n     int
	actor string
	log   *callLog
}

func (t *recTx) Effect(ctx context.Context, e target.Effect) (bool, error) {
	out, err := t.tx.Effect(ctx, e)
	t.log.add(call{kind: callEffect, actor: t.actor, tx: t.n, eff: e}, out, err)
	return out, err
}

func (t *recTx) Complete(ctx context.Context, now target.Time, j target.Job) (target.Job, error) {
	out, err := t.tx.Complete(ctx, now, j)
	t.log.add(call{kind: callComplete, actor: t.actor, tx: t.n, now: now, job: j}, out, err)
	return out, err
}

func (t *recTx) Insert(ctx context.Context, now target.Time, r target.InsertReq) (target.Inserted, error) {
	out, err := t.tx.Insert(ctx, now, r)
	t.log.add(call{kind: callTxInsert, actor: t.actor, tx: t.n, now: now, ins: r}, out, err)
	return out, err
}

func (t *recTx) Commit(ctx context.Context) error {
	err := t.tx.Commit(ctx)
	t.log.add(call{kind: callCommit, actor: t.actor, tx: t.n}, nil, err)
	return err
}

func (t *recTx) Rollback(ctx context.Context) error {
	err := t.tx.Rollback(ctx)
	t.log.add(call{kind: callRollback, actor: t.actor, tx: t.n}, nil, err)
	return err
}

// replay issues the log's calls in order against q: the floor. With
// check, each answer is held to the recorded one.
func (l *callLog) replay(ctx context.Context, q target.Queue, check bool) error {
	conns := map[string]target.Conn{}
	conn := func(actor string) target.Conn {
		c, ok := conns[actor]
		if !ok {
			c = q.Conn(actor)
			conns[actor] = c
		}
		return c
	}
	txs := map[int]target.Tx{}
	var rnd *replayRand
	for i := range l.calls {
		c := &l.calls[i]
		var out any
		var err error
		switch c.kind {
		case callReset:
			rnd = &replayRand{draws: l.draws}
			err = q.Reset(ctx, rnd)
		case callInsert:
			out, err = conn(c.actor).Insert(ctx, c.now, c.ins)
		case callFetch:
			out, err = conn(c.actor).Fetch(ctx, c.now, c.max)
		case callReport:
			out, err = conn(c.actor).Report(ctx, c.now, c.job, c.rep)
		case callStuck:
			out, err = conn(c.actor).Stuck(ctx, c.now)
		case callRescue:
			out, err = conn(c.actor).Rescue(ctx, c.now, c.jobs)
		case callSchedule:
			out, err = conn(c.actor).Schedule(ctx, c.now)
		case callRetry:
			out, err = conn(c.actor).Retry(ctx, c.now, c.id)
		case callBegin:
			var tx target.Tx
			if tx, err = conn(c.actor).Begin(ctx); err == nil {
				txs[c.tx] = tx
			}
		case callEffect:
			out, err = txs[c.tx].Effect(ctx, c.eff)
		case callComplete:
			out, err = txs[c.tx].Complete(ctx, c.now, c.job)
		case callTxInsert:
			out, err = txs[c.tx].Insert(ctx, c.now, c.ins)
		case callCommit:
			err = txs[c.tx].Commit(ctx)
		case callRollback:
			err = txs[c.tx].Rollback(ctx)
		case callSnapshot:
			out, err = q.Snapshot(ctx)
		}
		if !check {
			if err != nil && c.err == "" {
				return fmt.Errorf("call %d: %w", i+1, err)
			}
			continue
		}
		if got := errString(err); got != c.err || c.kind != callReset && c.kind != callBegin && !reflect.DeepEqual(out, c.out) {
			return fmt.Errorf("call %d (kind %d, %s): got %v (%s), recorded %v (%s)", i+1, c.kind, c.actor, out, got, c.out, c.err)
		}
	}
	if rnd != nil && (rnd.bad || check && rnd.n != len(rnd.draws)) {
		return fmt.Errorf("the queue drew %d random numbers, the sweep %d", rnd.n, len(rnd.draws))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
