package riverrepro

import (
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// TestRescuerLeavesJobsThatMovedOn is River issue #1302 on the pinned
// release, where it is fixed: a job the rescuer listed as stuck
// (JobGetStuck) but that, before its JobRescueMany, completed or was
// claimed again by another worker, is left as it is. v047/ runs the same
// sequence on v0.47.0, whose JobRescue overwrites it.
//
// River v0.51.2: riverdriver/riversqlite internal/dbsqlc/river_job.sql,
// JobRescue (WHERE id = @id AND state = 'running' AND attempted_at <
// @stuck_horizon); river_sqlite_driver.go, Executor.JobRescueMany;
// internal/maintenance/job_rescuer.go, runOnce (JobGetStuck, then
// makeRetryDecision per job, then rescueMany). CHANGELOG.md 0.48.0:
// "Fixed JobRescuer overwriting jobs that complete, leave the running
// state, or are claimed again by another worker after being fetched for
// rescue ... Fixes #1302 ... PR #1373".
func TestRescuerLeavesJobsThatMovedOn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between func(t *testing.T, d *testDB, id int64)
		want    rivertype.JobState
		attempt int
	}{
		{name: "completed", want: rivertype.JobStateCompleted, attempt: 1,
			between: func(t *testing.T, d *testDB, id int64) {
				setState(t, d.exec, riverdriver.JobSetStateCompleted(id, at(11*time.Second), nil), at(11*time.Second))
			}},
		{name: "claimed again", want: rivertype.JobStateRunning, attempt: 2,
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
			before := 0
			stuck := d.rescue(t, at(2*time.Second), at(12*time.Second), at(13*time.Second), func() {
				tc.between(t, d, id)
				before = len(d.job(t, id).Errors)
			})
			if len(stuck) != 1 || stuck[0].ID != id {
				t.Fatalf("JobGetStuck listed %d jobs, want job %d", len(stuck), id)
			}
			j := d.job(t, id)
			if j.State != tc.want || j.Attempt != tc.attempt || len(j.Errors) != before {
				t.Fatalf("after the rescue: %s attempt %d with %d errors; want it left %s attempt %d with %d errors",
					j.State, j.Attempt, len(j.Errors), tc.want, tc.attempt, before)
			}
		})
	}
}
