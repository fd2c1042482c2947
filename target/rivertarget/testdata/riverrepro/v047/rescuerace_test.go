package riverrepro047

import (
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// TestRescuerOverwritesJobsThatMovedOn is River issue #1302 on v0.47.0: a
// job the rescuer listed as stuck (JobGetStuck) but that, before its
// JobRescueMany, completed or was claimed again by another worker, is
// overwritten all the same: made retryable, the rescue's error appended.
// A completed job will run again; a job another worker holds is handed
// out a second time. ../rescuerace_test.go runs the same sequence on
// v0.51.2, where the job is left as it is.
//
// River v0.47.0: riverdriver/riversqlite internal/dbsqlc/river_job.sql,
// JobRescue (UPDATE ... WHERE id = @id: no state = 'running' guard, and
// JobRescueManyParams.StuckHorizon is not used); river_sqlite_driver.go,
// Executor.JobRescueMany; internal/maintenance/job_rescuer.go, runOnce
// (JobGetStuck, then makeRetryDecision per job, then rescueMany).
// Fixed in 0.48.0 (CHANGELOG.md: "Fixed JobRescuer overwriting jobs that
// complete, leave the running state, or are claimed again by another
// worker after being fetched for rescue ... Fixes #1302 ... PR #1373").
func TestRescuerOverwritesJobsThatMovedOn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between func(t *testing.T, d *testDB, id int64)
		attempt int
	}{
		{name: "completed", attempt: 1,
			between: func(t *testing.T, d *testDB, id int64) {
				setState(t, d.exec, riverdriver.JobSetStateCompleted(id, at(11*time.Second), nil), at(11*time.Second))
			}},
		{name: "claimed again", attempt: 2,
			between: func(t *testing.T, d *testDB, id int64) {
				setState(t, d.exec, riverdriver.JobSetStateErrorAvailable(id, at(11*time.Second),
					attemptError(t, 1, "handler error", at(11*time.Second)), nil), at(11*time.Second))
				d.fetch(t, "worker-b", at(11*time.Second))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openDB(t)
			id := d.insert(t, 5, t0)
			d.fetch(t, "worker-a", at(time.Second))
			var moved *rivertype.JobRow
			stuck := d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), func() {
				tc.between(t, d, id)
				moved = d.job(t, id)
			})
			if len(stuck) != 1 || stuck[0].ID != id {
				t.Fatalf("JobGetStuck listed %d jobs, want job %d", len(stuck), id)
			}
			j := d.job(t, id)
			if j.State != rivertype.JobStateRetryable || j.Attempt != tc.attempt || len(j.Errors) != len(moved.Errors)+1 ||
				j.Errors[len(j.Errors)-1].Error != "Stuck job rescued by JobRescuer" {
				t.Fatalf("after the rescue: %s attempt %d with %d errors; want the %s job (attempt %d, %d errors) overwritten: retryable, the rescue's error appended",
					j.State, j.Attempt, len(j.Errors), moved.State, moved.Attempt, len(moved.Errors))
			}
			t.Logf("the rescuer made the %s job (attempt %d, attempted_by %v) retryable", moved.State, moved.Attempt, moved.AttemptedBy)
		})
	}
}
