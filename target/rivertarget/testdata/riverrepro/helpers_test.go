package riverrepro

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver riversqlite runs on
)

// The driver-level tests pass every time River's SQL compares (Now,
// StuckHorizon, ScheduledAt), as River's client passes its clock's: they
// read no wall clock, and run the same way each time.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ptr[T any](v T) *T { return &v }

// quiet is River's logger: silent, or River's own lines at debug level
// with RIVERREPRO_LOG=1.
var quiet = func() *slog.Logger {
	if os.Getenv("RIVERREPRO_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}()

// testDB is River's schema in a fresh SQLite file.
type testDB struct {
	db     *sql.DB
	driver *riversqlite.Driver
	exec   riverdriver.Executor
}

func openDB(t *testing.T) *testDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "river.sqlite3")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // as riversqlite's documentation advises
	t.Cleanup(func() { _ = db.Close() })
	driver := riversqlite.New(db)
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(context.Background(), rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	return &testDB{db: db, driver: driver, exec: driver.GetExecutor()}
}

// insert is the client's Insert of one job through JobInsertFastMany.
func (d *testDB) insert(t *testing.T, maxAttempts int, now time.Time) int64 {
	t.Helper()
	res, err := d.exec.JobInsertFastMany(context.Background(), &riverdriver.JobInsertFastManyParams{Jobs: []*riverdriver.JobInsertFastParams{{
		CreatedAt: &now, EncodedArgs: []byte(`{"doc":"d1"}`), Kind: "repro_doc", MaxAttempts: maxAttempts, Metadata: []byte("{}"),
		Priority: 1, Queue: "default", ScheduledAt: &now, State: rivertype.JobStateAvailable, Tags: []string{},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Job.ID
}

// fetch is a producer's fetch (producer.go): JobGetAvailable for one
// client, one job.
func (d *testDB) fetch(t *testing.T, client string, now time.Time) *rivertype.JobRow {
	t.Helper()
	res, err := d.exec.JobGetAvailable(context.Background(), &riverdriver.JobGetAvailableParams{
		ClientID: client, MaxAttemptedBy: 100, MaxToLock: 1, Now: &now, Queue: "default",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 {
		t.Fatalf("%s fetched %d jobs, want 1", client, len(res.Jobs))
	}
	return res.Jobs[0]
}

// setState is how the completer (internal/jobcompleter, setStateParamsToMany)
// and JobCompleteTx (job_complete_tx.go) write a result: one
// JobSetStateIfRunningParams through JobSetStateIfRunningMany.
func setState(t *testing.T, ex riverdriver.Executor, p *riverdriver.JobSetStateIfRunningParams, now time.Time) *rivertype.JobRow {
	t.Helper()
	rows, err := ex.JobSetStateIfRunningMany(context.Background(), &riverdriver.JobSetStateIfRunningManyParams{
		Attempt: []*int{p.Attempt}, ErrData: [][]byte{p.ErrData}, FinalizedAt: []*time.Time{p.FinalizedAt}, ID: []int64{p.ID},
		MetadataDoMerge: []bool{p.MetadataDoMerge}, MetadataUpdates: [][]byte{p.MetadataUpdates}, Now: &now,
		ScheduledAt: []*time.Time{p.ScheduledAt}, State: []rivertype.JobState{p.State},
	})
	if err != nil {
		t.Fatalf("JobSetStateIfRunningMany(%s): %v", p.State, err)
	}
	if len(rows) != 1 {
		t.Fatalf("JobSetStateIfRunningMany(%s) returned %d rows, want 1", p.State, len(rows))
	}
	return rows[0]
}

// attemptError is the executor's error record for one attempt
// (internal/jobexecutor, reportError).
func attemptError(t *testing.T, attempt int, msg string, now time.Time) []byte {
	t.Helper()
	b, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: attempt, Error: msg})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rescue is the rescuer's pass (internal/maintenance/job_rescuer.go,
// runOnce): JobGetStuck past the horizon, then a retry of each job it
// listed through JobRescueMany, as makeRetryDecision decides for a job
// with attempts left. between, if not nil, runs between the two
// statements, where runOnce makes its decisions.
func (d *testDB) rescue(t *testing.T, horizon, now, retryAt time.Time, between func()) []*rivertype.JobRow {
	t.Helper()
	ctx := context.Background()
	stuck, err := d.exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{Max: 100, StuckHorizon: horizon})
	if err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between()
	}
	p := &riverdriver.JobRescueManyParams{StuckHorizon: horizon}
	for _, j := range stuck {
		p.ID = append(p.ID, j.ID)
		p.Error = append(p.Error, attemptError(t, j.Attempt, "Stuck job rescued by JobRescuer", now))
		p.FinalizedAt = append(p.FinalizedAt, nil)
		p.ScheduledAt = append(p.ScheduledAt, retryAt)
		p.State = append(p.State, string(rivertype.JobStateRetryable))
	}
	if len(p.ID) > 0 {
		if _, err := d.exec.JobRescueMany(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	return stuck
}

// schedule is the job scheduler's pass (internal/maintenance/job_scheduler.go).
func (d *testDB) schedule(t *testing.T, now time.Time) {
	t.Helper()
	if _, err := d.exec.JobSchedule(context.Background(), &riverdriver.JobScheduleParams{Max: 100, Now: &now}); err != nil {
		t.Fatal(err)
	}
}

func (d *testDB) job(t *testing.T, id int64) *rivertype.JobRow {
	t.Helper()
	j, err := d.exec.JobGetByID(context.Background(), &riverdriver.JobGetByIDParams{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return j
}
