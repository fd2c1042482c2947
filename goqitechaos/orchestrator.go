package goqitechaos

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"maragu.dev/goqite"

	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/goqitetarget"
	"github.com/durasim/durasim/targetsim"
)

// Report is a finished goqite run: the workload's report.
type Report = workload.Report

// Run runs a goqite chaos campaign on the workload (package
// crash/workload) and checks it. The error is a *UsageError for bad
// input, another error when the run could not finish; a finished run
// returns its report, whose OK says whether every check held.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	if cfg.DB == "" {
		dir, err := os.MkdirTemp("", "durasim-goqite-db-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.DB = filepath.Join(dir, "goqite.db")
	}
	db, err := openDB(cfg.DB, time.Minute)
	if err == nil {
		err = prepare(ctx, db)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, &UsageError{Err: fmt.Errorf("database %s: %w", cfg.DB, err)}
	}
	defer db.Close()
	a := &adapter{cfg: cfg, db: db, q: newQueue(db, cfg.MaxAttempts, cfg.Visibility)}
	return workload.Run(ctx, workload.Spec{Config: cfg.Config, Lib: "goqite", Name: "goqitechaos", Role: "goqite-worker", Stream: 0x90417,
		Env: []string{EnvDB + "=" + cfg.DB}, Adapter: a, Feed: Feed(cfg), Poll: 25 * time.Millisecond, Start: start})
}

// Feed is what a goqite run's histories give the checks: a partial
// history (a kill may cut any line off; a lapsing timeout, goqite's only
// "rescue", writes nothing, and neither do the deletes after a
// non-transactional handler), every insert recorded, no operator, handlers
// that return nil or an error, one effect per document promised (none
// without a completion, for the transactional designs), and goqite's
// rules (goqitetarget's, the deterministic mode's).
func Feed(c Config) invariants.TargetFeed {
	return invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry},
		Outcomes: []target.Outcome{target.Done, target.Errored}, Drained: true, ExactlyOnce: true,
		EffectKinds: []string{targetsim.KindDoc}, Transactional: workload.Transactional(c.Design), Policy: goqitetarget.Rules(c.goqiteConfig())}
}

// adapter is goqite's part of the workload: its sends, its table read
// for the backlog, the takeovers and the final state.
type adapter struct {
	cfg Config
	db  *sql.DB
	q   *goqite.Queue
}

// Args is a child's flags: `durasim goqite-worker`'s.
func (a *adapter) Args(c crash.Child) []string {
	return ChildConfig{Child: workload.ChildOf(c, a.cfg.Config), MaxAttempts: a.cfg.MaxAttempts, Visibility: a.cfg.Visibility,
		JobTimeout: a.cfg.JobTimeout, RetryBase: a.cfg.RetryBase, RetryCap: a.cfg.RetryCap}.Args()
}

// Insert sends document i's message (goqite has no unique send: every
// send a new message).
func (a *adapter) Insert(ctx context.Context, i int, doc workload.DocArgs) (workload.Entry, error) {
	id, err := send(ctx, a.db, a.q, i, doc, a.cfg.MaxAttempts)
	return workload.Entry{Job: int64(i), Msg: string(id)}, err
}

// Available is the messages goqite would hand out now.
func (a *adapter) Available(ctx context.Context) (int, error) {
	var n int
	err := a.db.QueryRowContext(ctx, "SELECT count(*) FROM goqite WHERE queue = $1 AND timeout <= $2 AND received < $3", Queue,
		stampOf(time.Now()), a.cfg.MaxAttempts).Scan(&n)
	return n, err
}

// Live is the messages goqite still has that it may hand out, or that
// someone holds.
func (a *adapter) Live(ctx context.Context) (int, error) {
	var n int
	err := a.db.QueryRowContext(ctx, "SELECT count(*) FROM goqite WHERE queue = $1 AND (received < $2 OR timeout > $3)", Queue,
		a.cfg.MaxAttempts, stampOf(time.Now())).Scan(&n)
	return n, err
}

// TakenOver: goqite handed h's message out again (its timeout passed
// while the child slept), or another deleted it since.
func (a *adapter) TakenOver(ctx context.Context, h workload.Holding) bool {
	var n sql.NullInt64
	err := a.db.QueryRowContext(ctx, "SELECT g.received FROM durasim_job j LEFT JOIN goqite g ON g.id = j.msg WHERE j.seq = $1", h.Job).Scan(&n)
	return err == nil && (!n.Valid || int(n.Int64) > h.Attempt)
}

// Snapshot reads the jobs and effects back from the database file.
func (a *adapter) Snapshot(ctx context.Context, _ int, base time.Time) (target.Snapshot, error) {
	return snapshot(ctx, a.db, base)
}

// Describe is goqite's header.
func (a *adapter) Describe(r *workload.Report) {
	c := a.cfg
	r.Header = fmt.Sprintf("goqite chaos: goqite %s's queue API (SendAndGetIDTx, ReceiveTx, ExtendTx, DeleteTx) on one SQLite file (WAL), design %s (%s), %d processes (%d never killed) × %d at once, visibility timeout %v, seed %d",
		goqitetarget.Version(), c.Design, What(c.Design), c.Workers, c.Steady, c.Concurrency, c.Visibility, c.Seed)
	r.StateFrom = "the SQLite file (goqite's table, durasim's record of each job beside it)"
	r.NotChecked = "a lapsing timeout and the deletes after a non-transactional handler write nothing in the histories"
}
