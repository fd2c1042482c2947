package chaos

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/boundary"
	"github.com/durasim/durasim/crash"
	"github.com/durasim/durasim/sqlstore"
)

// ChildConfig is one process of a chaos run (`durasim worker`).
type ChildConfig struct {
	DB          string
	Role        string // RoleWorker, RoleRelay, RoleConsumer or RoleOperator
	ID          int
	Incarnation int
	Kill        crash.Assignment // where it SIGKILLs itself; the zero value never
	History     string           // path; "" keeps no history
	Seed        uint64
	Lease       time.Duration
	Work        time.Duration
	SlowWork    time.Duration // work per stage of ".slow" jobs
	Ordered     bool          // worker: lease FIFO (Worker.Ordered)
	Cursor      int64         // consumer: resume after this broker message
}

// prefixes name each role's processes (ProcName).
var prefixes = map[string]string{RoleWorker: "w", RoleRelay: "relay", RoleConsumer: "consumer", RoleOperator: "op"}

// ProcName is the name of a process in histories and reports: w3.2 is
// worker 3's third incarnation (the first is w3).
func ProcName(role string, id, inc int) string { return crash.ProcName(prefixes[role], id, inc) }

// Flags defines the child's flags on fs, parsed into c. -db's default is
// $DURASIM_PG_URL: the orchestrator passes the URL by environment, so
// that no password shows in ps.
func (c *ChildConfig) Flags(fs *flag.FlagSet) {
	d := DefaultConfig()
	*c = ChildConfig{Role: RoleWorker, Seed: 1, Lease: d.Lease, Work: d.Work}
	fs.StringVar(&c.DB, "db", os.Getenv("DURASIM_PG_URL"), "PostgreSQL URL (default $DURASIM_PG_URL)")
	fs.StringVar(&c.Role, "role", c.Role, "worker, relay, consumer or operator")
	fs.IntVar(&c.ID, "id", 0, "index of the process in its role")
	fs.IntVar(&c.Incarnation, "incarnation", 0, "how many times this slot was started before")
	c.Kill.Flags(fs)
	fs.StringVar(&c.History, "history", "", "file the process appends its history to (one JSON line per operation)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed (the consumer's redeliveries)")
	fs.DurationVar(&c.Lease, "lease", c.Lease, "lease duration")
	fs.DurationVar(&c.Work, "work", c.Work, "simulated work per stage")
	fs.DurationVar(&c.SlowWork, "slow-work", 0, "work per stage of the slow jobs")
	fs.BoolVar(&c.Ordered, "ordered", false, "worker: lease FIFO, only the oldest unfinished job")
	fs.Int64Var(&c.Cursor, "cursor", 0, "consumer: resume after this broker message")
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.DB == "":
		return errors.New("no database: give -db or set DURASIM_PG_URL")
	case prefixes[c.Role] == "":
		return fmt.Errorf("-role %q: want worker, relay, consumer or operator", c.Role)
	case c.ID < 0 || c.Incarnation < 0:
		return errors.New("-id and -incarnation must be >= 0")
	case c.Lease <= 0 || c.Work < 0 || c.SlowWork < 0:
		return errors.New("-lease must be > 0, -work and -slow-work >= 0")
	}
	return c.Kill.Check(PointsOf(c.Role), stmts)
}

// Run is RunChild(ctx, c).
func (c ChildConfig) Run(ctx context.Context) error { return RunChild(ctx, c) }

// RunChild runs one role until SIGTERM or SIGINT (then it returns nil), an
// error, or its kill point. Against PostgreSQL.
func RunChild(ctx context.Context, c ChildConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	proc := ProcName(c.Role, c.ID, c.Incarnation)
	start := Entry{Op: OpStart}
	if c.Kill.At != boundary.None {
		start.Point, start.Attempt = c.Kill.At.String(), int32(c.Kill.Nth)
	}
	ctx, hist, end, err := crash.Begin(ctx, c.History, proc, "durasim worker", start)
	if err != nil {
		return err
	}
	defer end()
	kill := &Killer{Assignment: c.Kill, Hist: hist}
	defer kill.Disarm()
	store, err := sqlstore.Open(ctx, sqlstore.Postgres, c.DB)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer store.Close()
	conn, err := store.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer conn.Close()
	clk := clock.New()
	switch c.Role {
	case RoleWorker:
		w := &Worker{Ops: conn, Clock: clk, Name: proc, Lease: c.Lease, Work: c.Work, SlowWork: c.SlowWork, Ordered: c.Ordered,
			Backoff: 20 * time.Millisecond, Idle: 10 * time.Millisecond, Facts: DBReader{store.DB()},
			Hist: hist, Kill: kill}
		err = w.Run(ctx)
	case RoleRelay:
		var pub *sqlstore.Conn
		if pub, err = store.Conn(ctx); err != nil {
			break
		}
		defer pub.Close()
		r := &Relay{Ops: conn, Pub: pub, Clock: clk, Batch: 8, Idle: 10 * time.Millisecond, Hist: hist, Kill: kill}
		err = r.Run(ctx)
	case RoleConsumer:
		cs := &Consumer{Ops: conn, Broker: StoreBroker(store), Clock: clk, Batch: 32, Idle: 10 * time.Millisecond,
			Redeliver: 0.05, Rand: rand.New(rand.NewPCG(c.Seed, uint64(c.Incarnation))), Cursor: c.Cursor,
			Hist: hist, Kill: kill}
		err = cs.Run(ctx)
	case RoleOperator:
		op := &Operator{Ops: conn, Read: DBReader{store.DB()}, Clock: clk, Name: "op-" + strconv.Itoa(c.ID),
			Deadline: 24 * time.Hour, Idle: 25 * time.Millisecond,
			Rand: rand.New(rand.NewPCG(c.Seed, 0x0b+uint64(c.Incarnation))), Hist: hist, Kill: kill}
		err = op.Run(ctx)
	}
	if ctx.Err() != nil {
		return nil // stopped: whatever was in flight rolled back
	}
	return err
}
