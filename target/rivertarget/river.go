package rivertarget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/target"
)

// RiverSchedulerInterval is River's default job scheduler interval
// (internal/maintenance.JobSchedulerIntervalDefault), which rivertest.Worker
// hands River's executor: a retry or snooze due within it is made available
// at once. The adapter's scheduler runs at the same interval.
const RiverSchedulerInterval = 5 * target.Second

// code is River's own Go code the adapter runs for one backend: a River
// client that is never started (inserts, JobRetry, JobCompleteTx's
// client), and River's job executor and inline completer run through
// rivertest.Worker. Every call sets River's clock (Config.Test.Time) to
// durasim's virtual time first.
type code interface {
	insert(ctx context.Context, tx dbTx, now target.Time, r target.InsertReq) (target.Inserted, error)
	// insertMany is the client's InsertMany, outside any transaction of
	// durasim's.
	insertMany(ctx context.Context, now target.Time, rs []target.InsertReq) ([]target.Inserted, error)
	// work runs River's executor on the job the worker holds, its work
	// ending as r says, and its completer in tx; it returns the row River's
	// completer returned (nil: it returned none, or one it emits no
	// completion for).
	work(ctx context.Context, tx dbTx, now target.Time, held *rivertype.JobRow, r target.Report) (*rivertype.JobRow, error)
	// complete is River's JobCompleteTx in tx.
	complete(ctx context.Context, tx dbTx, now target.Time, held *rivertype.JobRow) (*rivertype.JobRow, error)
	retry(ctx context.Context, now target.Time, id target.JobID) (*rivertype.JobRow, error)
}

// riverCode is code for the backend whose transactions are TTx.
type riverCode[TTx any] struct {
	clock  *clock
	client *river.Client[TTx]
	tester *rivertest.Worker[jobArgs, TTx]
	work_  *handlerWork
	driver *executorDriver[TTx]
	raw    func(dbTx) TTx
}

// newRiverCode builds River's client on driver and rivertest's worker on
// the same driver, wrapped (executorDriver). policy is the retry policy
// River's executor asks.
func newRiverCode[TTx any](driver riverdriver.Driver[TTx], clk *clock, policy river.ClientRetryPolicy, raw func(dbTx) TTx) (*riverCode[TTx], error) {
	c := &riverCode[TTx]{clock: clk, work_: &handlerWork{}, raw: raw}
	cfg := func() *river.Config {
		return &river.Config{
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			// No timeout: durasim's worker ends the work at the client's
			// JobTimeout itself (its deadline); River's executor would
			// otherwise arm a real-time timer and a goroutine watching it.
			JobTimeout:  -1,
			RetryPolicy: policy,
			Test:        river.TestConfig{Time: c.clock},
		}
	}
	client, err := river.NewClient(driver, cfg())
	if err != nil {
		return nil, fmt.Errorf("rivertarget: River's client: %w", err)
	}
	c.client = client
	c.driver = &executorDriver[TTx]{Driver: driver}
	t := &fakeTB{}
	if err := t.run(func() { c.tester = rivertest.NewWorker(t, c.driver, cfg(), c.work_) }); err != nil {
		return nil, fmt.Errorf("rivertarget: rivertest.NewWorker: %w", err)
	}
	return c, nil
}

// insertArgs are r's job args and insert options for River's client.
func insertArgs(r target.InsertReq) (jobArgs, *river.InsertOpts) {
	opts := &river.InsertOpts{MaxAttempts: r.MaxAttempts, Queue: queueName}
	if r.Unique {
		opts.UniqueOpts = river.UniqueOpts{ByArgs: true}
	}
	return jobArgs{argsJSON: argsOf(r.Args), kind: r.Kind}, opts
}

func (c *riverCode[TTx]) insertMany(ctx context.Context, now target.Time, rs []target.InsertReq) ([]target.Inserted, error) {
	c.clock.set(now)
	params := make([]river.InsertManyParams, len(rs))
	for i, r := range rs {
		params[i].Args, params[i].InsertOpts = insertArgs(r)
	}
	res, err := c.client.InsertMany(ctx, params)
	if err != nil {
		return nil, err
	}
	if len(res) != len(rs) {
		return nil, fmt.Errorf("rivertarget: a batch of %d returned %d rows", len(rs), len(res))
	}
	out := make([]target.Inserted, len(res))
	for i, r := range res {
		out[i] = target.Inserted{Job: target.JobID(r.Job.ID), Skipped: r.UniqueSkippedAsDuplicate}
	}
	return out, nil
}

func (c *riverCode[TTx]) insert(ctx context.Context, tx dbTx, now target.Time, r target.InsertReq) (target.Inserted, error) {
	c.clock.set(now)
	args, opts := insertArgs(r)
	var res *rivertype.JobInsertResult
	var err error
	if tx == nil {
		res, err = c.client.Insert(ctx, args, opts)
	} else {
		res, err = c.client.InsertTx(ctx, c.raw(tx), args, opts)
	}
	if err != nil {
		return target.Inserted{}, err
	}
	return target.Inserted{Job: target.JobID(res.Job.ID), Skipped: res.UniqueSkippedAsDuplicate}, nil
}

func (c *riverCode[TTx]) work(ctx context.Context, tx dbTx, now target.Time, held *rivertype.JobRow, r target.Report) (*rivertype.JobRow, error) {
	c.clock.set(now)
	c.work_.report = r
	c.driver.held = held
	defer func() { c.driver.held = nil }()
	var res *rivertest.WorkResult
	var err error
	t := &fakeTB{}
	if ferr := t.run(func() { res, err = c.tester.WorkJob(ctx, t, c.raw(tx), held) }); ferr != nil {
		if errors.Is(ferr, errNoCompletion) {
			return nil, nil
		}
		return nil, ferr
	}
	if err != nil && !errors.Is(err, errHandler) {
		return nil, err
	}
	if c.driver.err != nil {
		err, c.driver.err = c.driver.err, nil
		return nil, err
	}
	return res.Job, nil
}

func (c *riverCode[TTx]) complete(ctx context.Context, tx dbTx, now target.Time, held *rivertype.JobRow) (*rivertype.JobRow, error) {
	c.clock.set(now)
	job := &river.Job[jobArgs]{JobRow: held}
	got, err := river.JobCompleteTx[riverdriver.Driver[TTx]](rivertest.WorkContext(ctx, c.client), c.raw(tx), job)
	if err != nil {
		return nil, err
	}
	return got.JobRow, nil
}

func (c *riverCode[TTx]) retry(ctx context.Context, now target.Time, id target.JobID) (*rivertype.JobRow, error) {
	c.clock.set(now)
	return c.client.JobRetry(ctx, int64(id))
}

// seededPolicy is the retry policy River's executor asks (Config.RetryPolicy):
// River's default formula (retrypolicy.NextRetryAt: errors⁴ s ±10%), its
// jitter drawn from the seed. River's own DefaultClientRetryPolicy draws
// the jitter from math/rand/v2's global generator, which no program can
// seed: a run of it would not replay.
type seededPolicy struct {
	q   *Queue
	clk *clock
}

func (p seededPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return p.clk.now.Add(time.Duration(p.q.retryDelay(len(job.Errors) + 1)))
}

// clock is River's time generator (Config.Test.Time): durasim's virtual
// time of the call in progress.
type clock struct{ now time.Time }

func (c *clock) set(t target.Time)             { c.now = wall(t) }
func (c *clock) Now() time.Time                { return c.now }
func (c *clock) NowOrNil() *time.Time          { t := c.now; return &t }
func (c *clock) StubNow(t time.Time) time.Time { c.now = t; return t }

var _ rivertype.TimeGenerator = (*clock)(nil)

// jobArgs is the adapter's job args as River's client takes them: the
// encoded args, and the kind the seam names.
type jobArgs struct {
	argsJSON
	kind string
}

func (a jobArgs) Kind() string { return a.kind }

func argsOf(a target.Args) argsJSON {
	return argsJSON{Tenant: a.Tenant, Doc: a.Doc, Version: a.Version, Source: int64(a.Source)}
}

// errHandler is the error a handler returns for a plan's handler error
// (River records it in the job's errors).
var errHandler = errors.New("durasim: handler error")

// handlerWork is the river.Worker rivertest runs: its Work returns what
// the plan decided the work ended with (durasim's worker ran the handler's
// effect in the steps before).
type handlerWork struct {
	river.WorkerDefaults[jobArgs]
	report target.Report
}

func (h *handlerWork) Work(ctx context.Context, job *river.Job[jobArgs]) error {
	switch h.report.Outcome {
	case target.Done:
		return nil
	case target.Errored:
		return errHandler
	case target.Cancel:
		return river.JobCancel(errHandler)
	case target.Snooze:
		return river.JobSnooze(time.Duration(h.report.Snooze))
	}
	return fmt.Errorf("rivertarget: no work ends with outcome %s", h.report.Outcome)
}

// executorDriver is River's driver with one call of rivertest.Worker
// replaced: before it runs the executor, rivertest marks the job running
// itself (JobUpdateFull: attempt+1, attempted now). In the sweep the job
// was fetched by River's producer query (JobGetAvailable) steps earlier and
// other actors may have moved it since, so the executor gets the row the
// worker fetched instead, as River's producer hands it, and the database
// is left as it is.
type executorDriver[TTx any] struct {
	riverdriver.Driver[TTx]
	held *rivertype.JobRow
	err  error
}

func (d *executorDriver[TTx]) UnwrapExecutor(tx TTx) riverdriver.ExecutorTx {
	return &heldExecutor{ExecutorTx: d.Driver.UnwrapExecutor(tx), held: func() *rivertype.JobRow { return d.held },
		fail: func(err error) { d.err = err }}
}

type heldExecutor struct {
	riverdriver.ExecutorTx
	held func() *rivertype.JobRow
	fail func(error)
}

func (e *heldExecutor) JobUpdateFull(ctx context.Context, p *riverdriver.JobUpdateFullParams) (*rivertype.JobRow, error) {
	h := e.held()
	if h == nil || p.ID != h.ID || p.State != rivertype.JobStateRunning {
		err := fmt.Errorf("rivertarget: River's JobUpdateFull on job %d outside a worked job", p.ID)
		e.fail(err)
		return nil, err
	}
	r := *h
	return &r, nil
}

// fakeTB is the testing.TB rivertest's helpers take: it fails by
// panicking with a fatal, which run turns back into an error. Only the
// methods rivertest.Worker calls are defined; the embedded nil TB panics on
// any other.
type fakeTB struct{ testing.TB }

type fatal struct{ msg string }

func (fakeTB) Helper()                           {}
func (fakeTB) Name() string                      { return "durasim" }
func (fakeTB) Log(...any)                        {}
func (fakeTB) Logf(string, ...any)               {}
func (fakeTB) Fatal(args ...any)                 { panic(fatal{fmt.Sprint(args...)}) }
func (fakeTB) Fatalf(format string, args ...any) { panic(fatal{fmt.Sprintf(format, args...)}) }
func (fakeTB) Errorf(format string, args ...any) { panic(fatal{fmt.Sprintf(format, args...)}) }
func (fakeTB) Cleanup(func())                    {}

// errNoCompletion is rivertest.Worker failing because River's completer
// emitted no completion: JobSetStateIfRunningMany returned no row, or one
// in a state no completion leads to (the job was deleted, or moved out of
// band while the worker held it).
var errNoCompletion = errors.New("rivertarget: River's completer emitted no completion")

// run calls f, and returns a fatal f raised as an error.
func (fakeTB) run(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			ft, ok := v.(fatal)
			if !ok {
				panic(v)
			}
			if ft.msg == "test worker internal error: no job completions received" {
				err = errNoCompletion
				return
			}
			err = errors.New(ft.msg)
		}
	}()
	f()
	return nil
}
