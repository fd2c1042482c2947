package riverrepro

import (
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// TestSupersededAttemptReport: after a rescue and a second fetch, attempt
// 2 holds the job (running, attempted_by ending in worker-b); a report of
// attempt 1's result, written as the executor and completer write every
// result, is applied to the job all the same. JobSetStateIfRunningMany
// matches on id and state = 'running' only; its Attempt parameter is a
// value to write (a snooze gives its attempt back), not a condition. So
// a late error report makes attempt 2's job retryable, a late completion
// completes it while attempt 2 still works, and a late snooze writes
// attempt 0 over attempt 2.
//
// River v0.51.2: riverdriver/riversqlite internal/dbsqlc/river_job.sql,
// JobSetStateIfRunning (WHERE id = @id AND state = 'running'; attempt =
// @attempt when attempt_do_update); riverdriver river_driver_interface.go,
// JobSetStateIfRunningParams (ID, no attempt to match) and the
// JobSetState* constructors; internal/jobexecutor job_executor.go,
// reportResult and reportError, which build them from the attempt's
// jobRow.ID alone; internal/jobcompleter job_completer.go,
// setStateParamsToMany.
func TestSupersededAttemptReport(t *testing.T) {
	now := at(20 * time.Second)
	for _, tc := range []struct {
		name  string
		p     func(id int64, errData []byte) *riverdriver.JobSetStateIfRunningParams
		state rivertype.JobState
		check func(t *testing.T, j *rivertype.JobRow)
	}{
		{name: "error", state: rivertype.JobStateRetryable,
			p: func(id int64, errData []byte) *riverdriver.JobSetStateIfRunningParams {
				return riverdriver.JobSetStateErrorRetryable(id, at(60*time.Second), errData, nil)
			},
			check: func(t *testing.T, j *rivertype.JobRow) {
				if last := j.Errors[len(j.Errors)-1]; last.Attempt != 1 || !j.ScheduledAt.Equal(at(60*time.Second)) {
					t.Errorf("last error from attempt %d, scheduled_at %v; want attempt 1's error and its retry time", last.Attempt, j.ScheduledAt)
				}
			}},
		{name: "completed", state: rivertype.JobStateCompleted,
			p: func(id int64, _ []byte) *riverdriver.JobSetStateIfRunningParams {
				return riverdriver.JobSetStateCompleted(id, now, nil)
			},
			check: func(t *testing.T, j *rivertype.JobRow) {
				if j.FinalizedAt == nil || !j.FinalizedAt.Equal(now) {
					t.Errorf("finalized_at %v, want attempt 1's %v", j.FinalizedAt, now)
				}
			}},
		{name: "snoozed", state: rivertype.JobStateScheduled,
			p: func(id int64, _ []byte) *riverdriver.JobSetStateIfRunningParams {
				return riverdriver.JobSetStateSnoozed(id, at(60*time.Second), 0, nil) // attempt 1 gives its attempt back: 1-1
			},
			check: func(t *testing.T, j *rivertype.JobRow) {
				if j.Attempt != 0 {
					t.Errorf("attempt %d after attempt 1's snooze, want 0 written over attempt 2", j.Attempt)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openDB(t)
			id := d.insert(t, 5, t0)
			d.fetch(t, "worker-a", at(time.Second))
			d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), nil)
			d.schedule(t, at(13*time.Second))
			a2 := d.fetch(t, "worker-b", at(13*time.Second))
			if a2.ID != id || a2.Attempt != 2 || a2.State != rivertype.JobStateRunning {
				t.Fatalf("second fetch: job %d attempt %d %s, want job %d attempt 2 running", a2.ID, a2.Attempt, a2.State, id)
			}

			// Attempt 1 (worker-a) reports at last.
			row := setState(t, d.exec, tc.p(id, attemptError(t, 1, "context deadline exceeded", now)), now)
			if row.State != tc.state {
				t.Fatalf("attempt 1's %s report left the job %s, want %s: applied to attempt 2's run", tc.name, row.State, tc.state)
			}
			j := d.job(t, id)
			if j.State != tc.state {
				t.Fatalf("job is %s, want %s", j.State, tc.state)
			}
			tc.check(t, j)
			t.Logf("attempt 2 (attempted_by %v) still works the job; attempt 1's %s report made it %s, attempt %d", j.AttemptedBy, tc.name, j.State, j.Attempt)
		})
	}
}

// TestSupersededAttemptReportPastMaxAttempts is the same late report with
// max_attempts 2: River's executor decides it from the row attempt 1 was
// fetched with (attempt 1 < max_attempts 2: retry, not discard), and
// JobSetStateIfRunningMany applies it to attempt 2, the last one allowed.
// The job is retried, and fetched a third time.
//
// River v0.51.2: internal/jobexecutor job_executor.go, reportError
// (jobRow.Attempt >= jobRow.MaxAttempts decides discard, on the executor's
// own copy of the row); riverdriver/riversqlite internal/dbsqlc
// river_job.sql, JobSetStateIfRunning and JobGetAvailable (attempt =
// attempt + 1, with no max_attempts condition).
func TestSupersededAttemptReportPastMaxAttempts(t *testing.T) {
	d := openDB(t)
	id := d.insert(t, 2, t0)
	a1 := d.fetch(t, "worker-a", at(time.Second))
	d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), nil)
	d.schedule(t, at(13*time.Second))
	d.fetch(t, "worker-b", at(13*time.Second))

	// Attempt 1's executor: its row says attempt 1 of 2, so an error is retried.
	if a1.Attempt >= a1.MaxAttempts {
		t.Fatalf("attempt 1's row: attempt %d of %d", a1.Attempt, a1.MaxAttempts)
	}
	now := at(20 * time.Second)
	setState(t, d.exec, riverdriver.JobSetStateErrorRetryable(id, at(21*time.Second), attemptError(t, 1, "context deadline exceeded", now), nil), now)
	d.schedule(t, at(21*time.Second))
	a3 := d.fetch(t, "worker-c", at(21*time.Second))
	if a3.ID != id || a3.Attempt != 3 || a3.MaxAttempts != 2 {
		t.Fatalf("third fetch: job %d attempt %d of %d; want job %d attempt 3 of 2", a3.ID, a3.Attempt, a3.MaxAttempts, id)
	}
	t.Logf("attempt %d of a job with max_attempts %d (attempted_by %v)", a3.Attempt, a3.MaxAttempts, a3.AttemptedBy)
}
