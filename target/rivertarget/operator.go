package rivertarget

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/durasim/durasim/target"
)

// River's calls beyond a worker's, each through River's driver as the
// client makes it: JobCancel, JobDelete, JobUpdate (metadata), a batch
// JobInsertFastMany; and another writer's update of a row (JobUpdateFull,
// River's own raw row write, standing for a user's SQL).

var _ target.Operator = (*conn)(nil)

// Cancel is the client's JobCancel.
func (c *conn) Cancel(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	r, err := c.db.exec().JobCancel(ctx, &riverdriver.JobCancelParams{ID: int64(id), CancelAttemptedAt: wall(now), Now: wallp(now),
		ControlTopic: "river_control"})
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Job{}, target.ErrNotFound
	}
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

// Delete is the client's JobDelete.
func (c *conn) Delete(ctx context.Context, now target.Time, id target.JobID) (target.Job, error) {
	r, err := c.db.exec().JobDelete(ctx, &riverdriver.JobDeleteParams{ID: int64(id)})
	switch {
	case errors.Is(err, rivertype.ErrNotFound):
		return target.Job{}, target.ErrNotFound
	case errors.Is(err, rivertype.ErrJobRunning):
		return target.Job{}, target.ErrRunning
	case err != nil:
		return target.Job{}, err
	}
	return jobOf(r)
}

// SetMetadata is JobUpdate with its metadata merged.
func (c *conn) SetMetadata(ctx context.Context, now target.Time, id target.JobID, key, value string) (target.Job, error) {
	m, err := json.Marshal(map[string]string{key: value})
	if err != nil {
		return target.Job{}, err
	}
	r, err := c.db.exec().JobUpdate(ctx, &riverdriver.JobUpdateParams{ID: int64(id), MetadataDoMerge: true, Metadata: m})
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Job{}, target.ErrNotFound
	}
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

// OutOfBand appends n errors to the row's error history, as another
// writer would: read the row, write its errors back longer.
func (c *conn) OutOfBand(ctx context.Context, now target.Time, id target.JobID, n int) (target.Job, error) {
	ex := c.db.exec()
	r, err := ex.JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: int64(id)})
	if errors.Is(err, rivertype.ErrNotFound) {
		return target.Job{}, target.ErrNotFound
	}
	if err != nil {
		return target.Job{}, err
	}
	errs := make([][]byte, 0, len(r.Errors)+n)
	for _, e := range r.Errors {
		b, err := json.Marshal(e)
		if err != nil {
			return target.Job{}, err
		}
		errs = append(errs, b)
	}
	for i := range n {
		b, err := json.Marshal(rivertype.AttemptError{At: wall(now), Attempt: r.Attempt, Error: fmt.Sprintf("durasim: out-of-band error %d", i+1)})
		if err != nil {
			return target.Job{}, err
		}
		errs = append(errs, b)
	}
	r, err = ex.JobUpdateFull(ctx, &riverdriver.JobUpdateFullParams{ID: int64(id), ErrorsDoUpdate: true, Errors: errs})
	if err != nil {
		return target.Job{}, err
	}
	return jobOf(r)
}

// InsertMany is River's client's InsertMany: the batch in one call.
func (c *conn) InsertMany(ctx context.Context, now target.Time, rs []target.InsertReq) ([]target.Inserted, error) {
	out, err := c.code.insertMany(ctx, now, rs)
	if repeatedKey(err) {
		return nil, target.ErrBatchRepeats
	}
	return out, err
}

// repeatedKey reports whether err is the driver refusing a batch that
// repeats a unique key (riversqlite's own check; PostgreSQL's
// "ON CONFLICT DO UPDATE command cannot affect row a second time",
// cardinality_violation, 21000).
func repeatedKey(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "21000"
	}
	return err != nil && strings.Contains(err.Error(), "unique key appears more than once in batch")
}
