package goqitechaos

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"maragu.dev/goqite"
	_ "modernc.org/sqlite" // database/sql driver "sqlite": SQLite's own strftime and randomblob, real time

	"github.com/durasim/durasim/crash/workload"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/goqitetarget"
	"github.com/durasim/durasim/targetsim"
)

// Queue is the goqite queue a run uses.
const Queue = "durasim"

// openDB opens the SQLite file every process of a run shares: WAL, so
// that readers never wait; every transaction BEGIN IMMEDIATE, so that
// two writers queue on the busy timeout instead of failing to upgrade a
// read lock.
func openDB(path string, busy time.Duration) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("no database file")
	}
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		path, busy.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// prepare applies goqite's schema and durasim's tables (goqitetarget's)
// to a new database file, or empties an existing one's.
func prepare(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'goqite'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		for _, s := range goqitetarget.SQLiteSchema() {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("schema: %w", err)
			}
		}
	}
	for _, s := range []string{"DELETE FROM goqite", "DELETE FROM durasim_job", "DELETE FROM durasim_effect", "DELETE FROM durasim_ledger"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// newQueue is goqite's queue of the run, on db.
func newQueue(db *sql.DB, maxReceive int, timeout time.Duration) *goqite.Queue {
	return goqitetarget.NewSQLiteQueue(db, Queue, maxReceive, timeout)
}

// body is a message's body: the job's kind and document (goqitetarget's
// encoding).
type body struct {
	Kind string `json:"kind"`
	workload.DocArgs
}

// The adapter's word on a job (durasim_job.note, goqitetarget's words).
const (
	noteSent      = "sent"
	noteReceived  = "received"
	noteRetry     = "retry"
	noteDead      = "dead"
	noteCompleted = "completed"
)

// stampOf is t as goqite writes and compares its timeouts.
func stampOf(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// send is goqite's SendAndGetIDTx of document i's message, with
// durasim's record of it (job number i), in one transaction.
func send(ctx context.Context, db *sql.DB, q *goqite.Queue, i int, a workload.DocArgs, maxReceive int) (goqite.ID, error) {
	b, err := json.Marshal(body{Kind: targetsim.KindDoc, DocArgs: a})
	if err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	id, err := q.SendAndGetIDTx(ctx, tx, goqite.Message{Body: b})
	if err != nil {
		return "", err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO durasim_job (seq, msg, queue, kind, tenant, doc, version, source, max_receive, uniq, note, sent_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, 0, $9, $10)`, i, string(id), Queue, targetsim.KindDoc, a.Tenant, a.Doc, a.Version, maxReceive,
		noteSent, workload.Stamp())
	if err != nil {
		return "", err
	}
	return id, tx.Commit()
}

// received is the receive count goqite holds for message id now (false:
// goqite has deleted it).
func received(ctx context.Context, tx *sql.Tx, id goqite.ID) (int, bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT received FROM goqite WHERE id = $1", string(id)).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return n, err == nil, err
}

// deleteTx is goqite's DeleteTx of id in tx, with durasim's record (the
// last receive count kept, as goqite keeps none of a deleted message): a
// message goqite deleted already is left alone, and its record says what
// it became, and at which receive.
func deleteTx(ctx context.Context, tx *sql.Tx, q *goqite.Queue, seq int64, id goqite.ID) (target.State, int, error) {
	n, live, err := received(ctx, tx, id)
	if err != nil {
		return 0, 0, err
	}
	if !live {
		var note string
		if err := tx.QueryRowContext(ctx, "SELECT note, received FROM durasim_job WHERE seq = $1", seq).Scan(&note, &n); err != nil {
			return 0, 0, err
		}
		return states[note], n, nil
	}
	if _, err := tx.ExecContext(ctx, "UPDATE durasim_job SET note = $1, received = $2, finalized_at = $3 WHERE seq = $4",
		noteCompleted, n, workload.Stamp(), seq); err != nil {
		return 0, 0, err
	}
	return target.Completed, n, q.DeleteTx(ctx, tx, id)
}

// states are the seam's states of durasim's words on a job goqite
// deleted or gave up.
var states = map[string]target.State{noteCompleted: target.Completed, noteDead: target.Discarded}

// jobQuery reads a job: durasim's record and goqite's message (NULL once
// goqite deleted it).
const jobQuery = `SELECT j.seq, j.kind, j.tenant, j.doc, j.version, j.max_receive, j.note, j.received, j.errors, j.finalized_at, j.sent_at,
	g.received, g.timeout FROM durasim_job j LEFT JOIN goqite g ON g.id = j.msg`

// snapshot reads every job and effect back, with times relative to base:
// a message goqite still has is available, held (its timeout ahead) or a
// dead letter (received MaxReceive times); one it deleted is what
// durasim's record says.
func snapshot(ctx context.Context, db *sql.DB, base time.Time) (target.Snapshot, error) {
	var snap target.Snapshot
	rows, err := db.QueryContext(ctx, jobQuery+" ORDER BY j.seq")
	if err != nil {
		return snap, err
	}
	defer rows.Close()
	now := stampOf(time.Now())
	for rows.Next() {
		var j target.Job
		var seq, finalized, sent int64
		var note string
		var grec sql.NullInt64
		var timeout sql.NullString
		if err := rows.Scan(&seq, &j.Kind, &j.Args.Tenant, &j.Args.Doc, &j.Args.Version, &j.MaxAttempts, &note, &j.Attempt, &j.Errors,
			&finalized, &sent, &grec, &timeout); err != nil {
			return snap, err
		}
		j.ID, j.ScheduledAt = target.JobID(seq), sent-base.UnixNano()
		if finalized > 0 {
			j.FinalizedAt = finalized - base.UnixNano()
		}
		switch st, final := states[note]; {
		case grec.Valid:
			j.Attempt = int(grec.Int64)
			j.State = liveState(note, j.Attempt, j.MaxAttempts, strings.Compare(timeout.String, now) > 0)
			if at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", timeout.String); err == nil {
				j.ScheduledAt = at.UnixNano() - base.UnixNano()
			}
		case final:
			j.State = st
		default:
			return snap, fmt.Errorf("job %d: goqite deleted its message, and durasim's record says %q", seq, note)
		}
		snap.Jobs = append(snap.Jobs, j)
	}
	if err := rows.Err(); err != nil {
		return snap, err
	}
	snap.Effects, err = workload.SQLEffects(ctx, db, base)
	return snap, err
}

// liveState is the state of a message goqite still has: hidden (its
// timeout ahead) it is held, or waits for its retry; visible it is
// available, or, received MaxReceive times, a dead letter goqite will
// never hand out again.
func liveState(note string, received, maxReceive int, hidden bool) target.State {
	switch {
	case hidden && note == noteRetry:
		return target.Retryable
	case hidden:
		return target.Running
	case received >= maxReceive:
		return target.Discarded
	}
	return target.Available
}
