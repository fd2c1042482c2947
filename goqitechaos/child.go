package goqitechaos

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"maragu.dev/goqite"

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
)

// ChildConfig is one child process of a run: one worker of goqite's
// queue API.
type ChildConfig struct {
	workload.Child
	DB                     string // the SQLite file
	MaxAttempts            int    // goqite's MaxReceive
	Visibility, JobTimeout time.Duration
	RetryBase, RetryCap    time.Duration
}

// EnvDB passes the database file to the children.
const EnvDB = "DURASIM_GOQITE_DB"

// Flags defines the child's flags on fs, parsed into c.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	c.Child.Flags(fs, d.Config)
	c.MaxAttempts, c.Visibility, c.JobTimeout, c.RetryBase, c.RetryCap = d.MaxAttempts, d.Visibility, d.JobTimeout, d.RetryBase, d.RetryCap
	fs.StringVar(&c.DB, "db", os.Getenv(EnvDB), "the run's SQLite file (default $"+EnvDB+")")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "goqite's MaxReceive")
	fs.DurationVar(&c.Visibility, "goqite-timeout", c.Visibility, "goqite's NewOpts.Timeout: how long a receive hides a message")
	fs.DurationVar(&c.JobTimeout, "job-timeout", c.JobTimeout, "a handler's run at most (its context), below -goqite-timeout")
	fs.DurationVar(&c.RetryBase, "retry-base", c.RetryBase, "a handler's error extends the message's timeout by this·n² after its n-th error")
	fs.DurationVar(&c.RetryCap, "retry-cap", c.RetryCap, "at most this")
}

// Args is the command line Flags parses back into c, but -db.
func (c ChildConfig) Args() []string {
	return append(c.Child.Args(), "-max-attempts", fmt.Sprint(c.MaxAttempts), "-goqite-timeout", c.Visibility.String(),
		"-job-timeout", c.JobTimeout.String(), "-retry-base", c.RetryBase.String(), "-retry-cap", c.RetryCap.String())
}

// config is c's settings as a run's, to validate them alike.
func (c ChildConfig) config() Config {
	cfg := DefaultConfig()
	cfg.MaxAttempts, cfg.Visibility, cfg.JobTimeout, cfg.RetryBase, cfg.RetryCap = c.MaxAttempts, c.Visibility, c.JobTimeout, c.RetryBase, c.RetryCap
	return cfg
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.DB == "":
		return errors.New("no database: give -db or set " + EnvDB)
	case c.MaxAttempts < 1:
		return errors.New("-max-attempts must be >= 1")
	}
	if err := c.config().goqiteConfig().Validate(); err != nil {
		return err
	}
	if c.JobTimeout <= 0 || c.JobTimeout >= c.Visibility {
		return errors.New("-job-timeout must be positive and below -goqite-timeout")
	}
	return c.Child.Validate("goqite", Designs())
}

// Run is RunChild(ctx, c).
func (c ChildConfig) Run(ctx context.Context) error { return RunChild(ctx, c) }

// poll is how long a worker waits after a receive found nothing.
const poll = 50 * time.Millisecond

// RunChild runs one worker of goqite's queue API: it receives messages
// (goqite's ReceiveTx, durasim's record of the receive in the same
// transaction), Concurrency at once, and hands each to the workload's
// handler of c's design; the transactional designs delete the message in
// the handler's transaction (goqite's DeleteTx), the others after the
// handler returned nil (goqite's DeleteTx with durasim's record); an
// error extends the message's timeout by the retry delay (goqite's
// ExtendTx). It runs until SIGTERM or SIGINT (then it lets its handlers
// end, and returns nil), an error, or its kill point.
func RunChild(ctx context.Context, c ChildConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	ctx, hist, kill, end, err := c.Begin(ctx, "durasim goqite-worker")
	if err != nil {
		return err
	}
	defer end()
	db, err := openDB(c.DB, 10*time.Second)
	if err != nil {
		return err
	}
	defer db.Close()
	w := &worker{c: c, db: db, q: newQueue(db, c.MaxAttempts, c.Visibility), name: c.Name()}
	w.h = (&workload.Handler{Store: workload.SQL{DB: db}, Design: c.Design, Name: w.name, Hist: hist, Kill: kill, Work: c.Work,
		Complete: w.completeTx}).Seeded(c.Seed, c.ID, c.Incarnation)
	return w.loop(ctx)
}

// worker is one child's receive loop.
type worker struct {
	c    ChildConfig
	db   *sql.DB
	q    *goqite.Queue
	name string
	h    *workload.Handler
}

// loop receives while ctx lasts, at most Concurrency jobs at once, and
// waits for its handlers at the end.
func (w *worker) loop(ctx context.Context) error {
	slots := make(chan struct{}, w.c.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case slots <- struct{}{}:
		}
		j, ok, err := w.receive(ctx)
		if err != nil || !ok {
			<-slots
			if err != nil && ctx.Err() == nil {
				fmt.Fprintln(os.Stderr, "goqite-worker: receive:", err)
			}
			sleep(ctx, poll)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			w.run(ctx, j)
		}()
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// receive is goqite's ReceiveTx and durasim's record of it (who received
// it, when), in one transaction; the job's attempt is goqite's receive
// count.
func (w *worker) receive(ctx context.Context) (workload.Job, bool, error) {
	var j workload.Job
	t0 := workload.Stamp()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return j, false, err
	}
	defer tx.Rollback()
	m, err := w.q.ReceiveTx(ctx, tx)
	if err != nil || m == nil {
		return j, false, err
	}
	err = tx.QueryRowContext(ctx, "SELECT g.received, j.seq FROM goqite g JOIN durasim_job j ON j.msg = g.id WHERE g.id = $1", string(m.ID)).
		Scan(&j.Attempt, &j.ID)
	if err != nil {
		return j, false, fmt.Errorf("message %s: %w", m.ID, err)
	}
	var b body
	if err := json.Unmarshal(m.Body, &b); err != nil {
		return j, false, fmt.Errorf("message %s: body: %w", m.ID, err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE durasim_job SET note = $1, attempted_at = $2,
		attempted_by = CASE WHEN attempted_by = '' THEN $3 ELSE attempted_by || ',' || $3 END WHERE seq = $4`, noteReceived, t0, w.name, j.ID)
	if err != nil {
		return j, false, err
	}
	j.Args, j.Fetched, j.Own = b.DocArgs, t0, m.ID
	return j, true, tx.Commit()
}

// run is one job: the handler, bound to JobTimeout (and not to the
// child's stop: a stopping child lets its handlers end), then the
// message's delete or retry.
func (w *worker) run(ctx context.Context, j workload.Job) {
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.c.JobTimeout)
	defer cancel()
	err := w.h.Handle(jctx, j)
	bg, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	switch {
	case err != nil:
		err = w.retry(bg, j)
	case !workload.Transactional(w.c.Design):
		err = w.inTx(bg, func(tx *sql.Tx) error {
			_, _, err := deleteTx(bg, tx, w.q, j.ID, j.Own.(goqite.ID))
			return err
		})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goqite-worker: job %d: %v\n", j.ID, err)
	}
}

// completeTx is the transactional designs' completion: goqite's DeleteTx
// in the handler's transaction.
func (w *worker) completeTx(ctx context.Context, tx workload.Tx, j workload.Job) (target.State, int, error) {
	return deleteTx(ctx, tx.Raw().(*sql.Tx), w.q, j.ID, j.Own.(goqite.ID))
}

// retry is the user's logic on a handler's error: the message's timeout
// extended by the retry delay after its n-th error (goqite's ExtendTx),
// or, at its last receive, nothing: goqite never hands it out again (a
// dead letter). A message goqite deleted meanwhile is left alone.
func (w *worker) retry(ctx context.Context, j workload.Job) error {
	return w.inTx(ctx, func(tx *sql.Tx) error {
		n, live, err := received(ctx, tx, j.Own.(goqite.ID))
		if err != nil || !live {
			return err
		}
		var errs int
		if err := tx.QueryRowContext(ctx, "UPDATE durasim_job SET errors = errors + 1 WHERE seq = $1 RETURNING errors", j.ID).Scan(&errs); err != nil {
			return err
		}
		if n >= w.c.MaxAttempts {
			_, err := tx.ExecContext(ctx, "UPDATE durasim_job SET note = $1, finalized_at = $2 WHERE seq = $3", noteDead, workload.Stamp(), j.ID)
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE durasim_job SET note = $1 WHERE seq = $2", noteRetry, j.ID); err != nil {
			return err
		}
		return w.q.ExtendTx(ctx, tx, j.Own.(goqite.ID), min(w.c.RetryCap, w.c.RetryBase*time.Duration(errs*errs)))
	})
}

func (w *worker) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
