package chaos

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// StoreBroker is the broker of a store, as the consumer reads it.
func StoreBroker(s *sqlstore.Store) Broker { return s }

// The reads below are the operator's console and a worker's look at its
// job: plain SELECTs over sqlstore's tables (the same SQL on SQLite and
// PostgreSQL), kept here because sqlstore's contract has no such views.
// They never write.

// JobFacts is what a worker reads of its job beside the lease.
type JobFacts struct {
	RedriveCount int32
	DeadlineAt   model.Time
}

// FactReader reads a job's facts.
type FactReader interface {
	JobFacts(ctx context.Context, job model.JobID) (JobFacts, error)
}

// DBReader reads through the store's pool.
type DBReader struct{ DB *sql.DB }

// JobFacts reads the job's redrive count and deadline.
func (r DBReader) JobFacts(ctx context.Context, job model.JobID) (JobFacts, error) {
	var f JobFacts
	err := r.DB.QueryRowContext(ctx, "SELECT redrive_count, deadline_at FROM jobs WHERE id = $1", job).Scan(&f.RedriveCount, &f.DeadlineAt)
	if err != nil {
		return f, fmt.Errorf("chaos: reading job %v: %v", job, err)
	}
	if f.DeadlineAt == 0 {
		f.DeadlineAt = math.MaxInt64
	}
	return f, nil
}

// DeadJob is a dead job as the operator's console lists it.
type DeadJob struct {
	ID          model.JobID
	Tenant      string
	Document    string
	Version     int32
	Payload     uint64
	MaxAttempts int32
	Reason      model.Code
	Reprocessed int // reprocess audit rows naming it
}

// Dead lists the dead jobs with their DLQ reason, by id.
func (r DBReader) Dead(ctx context.Context) ([]DeadJob, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT j.id, j.tenant, j.document, j.version, j.payload_hash, j.max_attempts, d.reason,
		(SELECT count(*) FROM audit a WHERE a.job = j.id AND a.action = 'reprocess')
		FROM jobs j JOIN dlq d ON d.job = j.id WHERE j.state = 'dead' ORDER BY j.id`)
	if err != nil {
		return nil, fmt.Errorf("chaos: reading the DLQ: %v", err)
	}
	defer rows.Close()
	var out []DeadJob
	for rows.Next() {
		var d DeadJob
		var payload int64
		var reason string
		if err := rows.Scan(&d.ID, &d.Tenant, &d.Document, &d.Version, &payload, &d.MaxAttempts, &reason, &d.Reprocessed); err != nil {
			return nil, fmt.Errorf("chaos: reading the DLQ: %v", err)
		}
		d.Payload = uint64(payload)
		d.Reason = parseCode(reason)
		out = append(out, d)
	}
	return out, rows.Err()
}

// Unaudited lists the redriven jobs with fewer redrive audit rows than
// redrives (an operator killed between the two), each with how many are
// missing, by id.
func (r DBReader) Unaudited(ctx context.Context) (map[model.JobID]int, []model.JobID, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT id, n FROM (SELECT j.id AS id, j.redrive_count -
		(SELECT count(*) FROM audit a WHERE a.job = j.id AND a.action = 'redrive') AS n
		FROM jobs j WHERE j.redrive_count > 0) m WHERE n > 0 ORDER BY id`)
	if err != nil {
		return nil, nil, fmt.Errorf("chaos: reading the audit log: %v", err)
	}
	defer rows.Close()
	out := map[model.JobID]int{}
	var ids []model.JobID
	for rows.Next() {
		var id model.JobID
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, nil, fmt.Errorf("chaos: reading the audit log: %v", err)
		}
		out[id] = n
		ids = append(ids, id)
	}
	return out, ids, rows.Err()
}

// MaxJob is the highest job id (0: none).
func (r DBReader) MaxJob(ctx context.Context) (model.JobID, error) {
	var id model.JobID
	if err := r.DB.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM jobs").Scan(&id); err != nil {
		return 0, fmt.Errorf("chaos: reading the jobs: %v", err)
	}
	return id, nil
}

// Job reads the enqueue request that made job id (ok false: no such job).
func (r DBReader) Job(ctx context.Context, id model.JobID) (sqlstore.NewJob, bool, error) {
	var j sqlstore.NewJob
	var payload int64
	err := r.DB.QueryRowContext(ctx, "SELECT tenant, document, version, idem_key, payload_hash, max_attempts FROM jobs WHERE id = $1", id).
		Scan(&j.Tenant, &j.Document, &j.Version, &j.Key, &payload, &j.MaxAttempts)
	if err == sql.ErrNoRows {
		return j, false, nil
	}
	if err != nil {
		return j, false, fmt.Errorf("chaos: reading job %v: %v", id, err)
	}
	j.PayloadHash = uint64(payload)
	return j, true, nil
}

// OperatorWork counts what the operator still has to do: jobs dead for
// max attempts (to redrive), poison jobs of version 1 without a
// reprocess, redrives without their audit row.
func (r DBReader) OperatorWork(ctx context.Context) (redrive, reprocess, audit int, err error) {
	err = r.DB.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM jobs j JOIN dlq d ON d.job = j.id WHERE j.state = 'dead' AND d.reason = 'max_attempts_exceeded'),
		(SELECT count(*) FROM jobs j JOIN dlq d ON d.job = j.id WHERE j.state = 'dead' AND d.reason = 'poison_schema' AND j.version = 1
			AND NOT EXISTS (SELECT 1 FROM audit a WHERE a.job = j.id AND a.action = 'reprocess')),
		(SELECT count(*) FROM jobs j WHERE j.redrive_count > (SELECT count(*) FROM audit a WHERE a.job = j.id AND a.action = 'redrive'))`).
		Scan(&redrive, &reprocess, &audit)
	if err != nil {
		err = fmt.Errorf("chaos: reading the operator's backlog: %v", err)
	}
	return redrive, reprocess, audit, err
}

// parseCode is model.Code's String read back (CodeNone for anything else).
func parseCode(s string) model.Code {
	for c := model.CodeNone; c <= model.CodeMissingOperator; c++ {
		if c.String() == s {
			return c
		}
	}
	return model.CodeNone
}
