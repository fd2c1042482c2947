package goqitetarget

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"maragu.dev/goqite"

	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/scheduler"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/effectsql"
)

// Backends: goqite's two SQL flavours (v0.4.0; v0.2.3 has SQLite only).
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Config is the settings of goqite's queues and of the client logic a
// user writes around them.
type Config struct {
	// Timeout is goqite's NewOpts.Timeout: how long a receive hides a
	// message (its visibility timeout).
	Timeout target.Time
	// RetryBase and RetryCap are the user's retry delay: goqite has no
	// retry, so a handler's error extends the message's timeout by
	// RetryBase·n² after its n-th error, at most RetryCap.
	RetryBase, RetryCap target.Time
}

// DefaultConfig is goqite's default timeout (five seconds) and retries
// after 1s·n², at most a minute.
func DefaultConfig() Config {
	return Config{Timeout: 5 * target.Second, RetryBase: target.Second, RetryCap: 60 * target.Second}
}

// Validate reports the first setting goqite or the retry delay refuses.
func (c Config) Validate() error {
	switch {
	case c.Timeout < target.Millisecond || c.Timeout%target.Millisecond != 0:
		return fmt.Errorf("goqite timeout must be a positive whole number of milliseconds (goqite keeps milliseconds), got %s", time.Duration(c.Timeout))
	case c.RetryBase < target.Millisecond || c.RetryBase%target.Millisecond != 0 || c.RetryCap < c.RetryBase || c.RetryCap%target.Millisecond != 0:
		return fmt.Errorf("retry base and cap must be whole milliseconds, 0 < base <= cap, got %s and %s", time.Duration(c.RetryBase), time.Duration(c.RetryCap))
	}
	return nil
}

// Queue is goqite as a target: goqite's queues (one per max receive
// count, goqite's being a queue's setting) on one database, with
// durasim's tables beside goqite's.
type Queue struct {
	cfg     Config
	backend string
	db      *sql.DB
	bubbles *bubble.Runner
	pg      *pgDB                 // PostgreSQL's scratch schema and clock; nil on SQLite
	queues  map[int]*goqite.Queue // by max receive count
	clk     clock
	rand    target.Rand
}

var _ target.ClockedQueue = (*Queue)(nil)

// Open applies goqite's schema and durasim's tables to the database
// (url: "" an in-memory SQLite database, or an SQLite file URL; a
// PostgreSQL URL, where they go to a scratch schema Close drops).
func Open(ctx context.Context, backend, url string, cfg Config) (*Queue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r, err := bubble.Process()
	if err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, backend: backend, bubbles: r, queues: map[int]*goqite.Queue{}}
	q.clk.reset()
	switch backend {
	case SQLite:
		q.db, err = openSQLite(ctx, url, q)
	case Postgres:
		if goqiteSchemaPostgres == "" {
			return nil, fmt.Errorf("goqitetarget: goqite %s has no PostgreSQL flavour", Version())
		}
		if url == "" {
			return nil, errors.New("goqitetarget: postgres needs a URL")
		}
		q.db, q.pg, err = openPostgres(ctx, url)
	default:
		return nil, fmt.Errorf("goqitetarget: unknown backend %q (want %s)", backend, strings.Join(backends(), " or "))
	}
	if err != nil {
		return nil, err
	}
	return q, nil
}

func (q *Queue) Name() string    { return "goqite" }
func (q *Queue) Backend() string { return q.backend }
func (q *Queue) Version() string { return Version() }
func (q *Queue) Config() Config  { return q.cfg }

// Close closes the database, dropping PostgreSQL's scratch schema first.
func (q *Queue) Close() error {
	var err error
	if q.pg != nil {
		err = q.pg.drop(q.db)
	}
	return errors.Join(err, q.db.Close())
}

// Version is the goqite release this binary was built with, from its
// module information ("(devel)" when there is none).
func Version() string {
	if apiRelease != "" {
		return apiRelease
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == modulePath {
				if m.Replace != nil && m.Replace.Version != "" {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "(devel)"
}

// Policy is goqite's rules, as its queue API and a user's client logic
// around it make them (goqite.go, v0.4.0):
//   - a receive hides a message for the timeout and counts (received);
//     once the timeout has passed, the next receive takes it again, with
//     no pass of anyone's (LeaseLapses): goqite's Receive compares the
//     timeout itself;
//   - no receipts: Delete and Extend name a message by id, whoever
//     received it (a late worker's delete takes a message another
//     receive holds);
//   - a message received MaxReceive times is never received again (a
//     dead letter left in the table), but Delete still deletes it: its
//     last receiver may finish it late (DeadLetterHeld);
//   - no unique send: every send is a new message;
//   - no retry, snooze or cancel of goqite's own: the user's error
//     extends the timeout by the retry delay (goqite's Extend), a snooze
//     by its span, each keeping its receive counted; a cancel deletes;
//   - a transactional delete (DeleteTx) completes the message whatever
//     it is doing, and does nothing to one already deleted;
//   - an operator's redrive of a dead letter starts its receive count
//     from 0 in place; of a cancelled job (its message deleted) it sends
//     a new message, which a holder of the old one cannot touch
//     (RetryResends);
//   - every timeout is written and compared on the clock of the process
//     that calls (time.Now().UTC()): a worker's clock off from the
//     others' moves its receives (Clocks.Process); the UTC() leaves no
//     local time for a zone to move, SQLite's strftime is UTC, and
//     PostgreSQL's timestamptz is an instant.
func (q *Queue) Policy() target.Policy {
	return target.Policy{
		Lease:              q.cfg.Timeout,
		LeaseLapses:        true,
		DeadLetterHeld:     true,
		Clocks:             target.Clocks{Process: true},
		Backoff:            target.Backoff{Base: q.cfg.RetryBase, Exponent: 2, Cap: q.cfg.RetryCap},
		Snooze:             target.AttemptCounted,
		Retry:              target.RetryResetsAttempts,
		CompleteNotRunning: target.CompletionCompletes,
		RetryResends:       []target.State{target.Cancelled},
	}
}

// Reset empties the tables for a new seed; rand draws goqite's message
// ids (randomblob) and nothing else.
func (q *Queue) Reset(ctx context.Context, rand target.Rand) error {
	q.rand = rand
	q.clk.reset()
	if q.pg != nil {
		return q.pg.reset(ctx, q.db)
	}
	for _, s := range []string{"DELETE FROM goqite", "DELETE FROM durasim_job", "DELETE FROM durasim_effect", "DELETE FROM durasim_ledger"} {
		if _, err := q.db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	_, err := q.db.ExecContext(ctx, "DELETE FROM sqlite_sequence")
	return err
}

func (q *Queue) Conn(actor string) target.Conn { return &conn{q: q, actor: actor} }

// goqite is the goqite queue of messages received at most maxReceive
// times.
func (q *Queue) goqite(maxReceive int) (*goqite.Queue, string) {
	name := "durasim_m" + strconv.Itoa(maxReceive)
	gq := q.queues[maxReceive]
	if gq == nil {
		gq = newGoqite(q.db, q.backend, name, maxReceive, time.Duration(q.cfg.Timeout))
		q.queues[maxReceive] = gq
	}
	return gq, name
}

// maxes are the max receive counts of the queues jobs were sent to, in
// order: a worker polls them in turn.
func (q *Queue) maxes(ctx context.Context) ([]int, error) {
	rows, err := q.db.QueryContext(ctx, "SELECT DISTINCT max_receive FROM durasim_job ORDER BY max_receive")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var m int
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Snapshot reads every job back: durasim's record of it and goqite's
// message while it has one.
func (q *Queue) Snapshot(ctx context.Context) (target.Snapshot, error) {
	var snap target.Snapshot
	rows, err := q.db.QueryContext(ctx, jobQuery+" ORDER BY j.seq")
	if err != nil {
		return snap, err
	}
	defer rows.Close()
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return snap, err
		}
		snap.Jobs = append(snap.Jobs, j.Job)
	}
	if err := rows.Err(); err != nil {
		return snap, err
	}
	er, err := q.db.QueryContext(ctx, effectsql.Query)
	if err != nil {
		return snap, err
	}
	defer er.Close()
	snap.Effects, err = effectsql.Scan(er)
	return snap, err
}

// The adapter's last word on a job (durasim_job.note), and the seam's
// state it stands for.
const (
	noteSent      = "sent"
	noteReceived  = "received"
	noteRetry     = "retry"
	noteSnooze    = "snooze"
	noteTaken     = "taken" // its timeout passed: receivable again
	noteDead      = "dead"  // received MaxReceive times, never again
	noteCompleted = "completed"
	noteCancelled = "cancelled"
	noteRedriven  = "redriven"
)

var noteStates = map[string]target.State{noteSent: target.Available, noteReceived: target.Running, noteRetry: target.Retryable,
	noteSnooze: target.Scheduled, noteTaken: target.Available, noteDead: target.Discarded, noteCompleted: target.Completed,
	noteCancelled: target.Cancelled, noteRedriven: target.Available}

// jobQuery reads a job: durasim's row and goqite's message (NULL once
// goqite deleted it).
const jobQuery = `SELECT j.seq, j.msg, j.max_receive, j.kind, j.tenant, j.doc, j.version, j.source, j.uniq, j.note, j.attempted_by,
	j.attempted_at, j.finalized_at, j.errors, j.received, j.sent_at, g.received, g.timeout
	FROM durasim_job j LEFT JOIN goqite g ON g.id = j.msg`

// job is a job as the adapter reads it.
type job struct {
	target.Job
	msg  goqite.ID
	note string
	live bool // goqite still has the message
}

type scanner interface{ Scan(dest ...any) error }

func scanJob(r scanner) (job, error) {
	var j job
	var seq, source int64
	var by, msg string
	var uniq int
	var grec sql.NullInt64
	var timeout any
	err := r.Scan(&seq, &msg, &j.MaxAttempts, &j.Kind, &j.Args.Tenant, &j.Args.Doc, &j.Args.Version, &source, &uniq, &j.note, &by,
		&j.AttemptedAt, &j.FinalizedAt, &j.Errors, &j.Attempt, &j.ScheduledAt, &grec, &timeout)
	if err != nil {
		return j, err
	}
	j.ID, j.Args.Source, j.Unique, j.msg = target.JobID(seq), target.JobID(source), uniq != 0, goqite.ID(msg)
	if by != "" {
		j.AttemptedBy = strings.Split(by, ",")
	}
	st, ok := noteStates[j.note]
	if !ok {
		return j, fmt.Errorf("goqitetarget: job %d: unknown note %q", seq, j.note)
	}
	j.State = st
	if grec.Valid {
		j.live, j.Attempt = true, int(grec.Int64)
		at, err := parseTimeout(timeout)
		if err != nil {
			return j, fmt.Errorf("goqitetarget: job %d: %w", seq, err)
		}
		j.ScheduledAt = at
	}
	return j, nil
}

// body is a job's message body: its kind and args.
type body struct {
	Kind    string `json:"kind"`
	Tenant  string `json:"tenant"`
	Doc     string `json:"doc"`
	Version int    `json:"version"`
	Source  int64  `json:"source,omitempty"`
}

func encodeBody(kind string, a target.Args) []byte {
	b, _ := json.Marshal(body{Kind: kind, Tenant: a.Tenant, Doc: a.Doc, Version: a.Version, Source: int64(a.Source)}) // strings and ints: cannot fail
	return b
}

// wall and virt convert between durasim's virtual time and the wall
// clock goqite's timestamps are in.
func wall(t target.Time) time.Time { return scheduler.Time(t).Wall() }
func virt(w time.Time) target.Time { return target.Time(scheduler.FromWall(w)) }

// goqite's timestamp format (its rfc3339Milli): UTC, milliseconds.
const stampLayout = "2006-01-02T15:04:05.000Z07:00"

// timeoutValue is t as goqite writes its timeout column: text on
// SQLite (its rfc3339Milli), a timestamptz on PostgreSQL.
func (q *Queue) timeoutValue(t time.Time) any {
	if q.pg != nil {
		return t.UTC()
	}
	return t.UTC().Format(stampLayout)
}

// parseTimeout reads goqite's timeout column (text on SQLite, a
// timestamptz on PostgreSQL).
func parseTimeout(v any) (target.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return virt(t), nil
	case string:
		w, err := time.Parse(stampLayout, t)
		if err != nil {
			return 0, fmt.Errorf("goqite timeout %q: %w", t, err)
		}
		return virt(w), nil
	case []byte:
		return parseTimeout(string(t))
	}
	return 0, fmt.Errorf("goqite timeout of type %T", v)
}
