package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/sqlstore"
)

// ChildConfig is one process of a chaos run (`durasim worker`).
type ChildConfig struct {
	DB          string
	Role        string // RoleWorker, RoleRelay, RoleConsumer or RoleOperator
	ID          int
	Incarnation int
	KillAt      Point // "" never
	KillNth     int
	KillStmt    int    // inside points: the statement boundary (0 any)
	History     string // path; "" keeps no history
	Seed        uint64
	Lease       time.Duration
	Work        time.Duration
	SlowWork    time.Duration // work per stage of ".slow" jobs
	Cursor      int64         // consumer: resume after this broker message
}

// ProcName is the name of a process in histories and reports: w3.2 is
// worker 3's third incarnation (the first is w3).
func ProcName(role string, id, inc int) string {
	n := map[string]string{RoleWorker: "w", RoleRelay: "relay", RoleConsumer: "consumer", RoleOperator: "op"}[role] + strconv.Itoa(id)
	if inc > 0 {
		n += "." + strconv.Itoa(inc)
	}
	return n
}

// Validate reports the first problem with c as a one-line error.
func (c ChildConfig) Validate() error {
	switch {
	case c.DB == "":
		return errors.New("no database: give -db or set DURASIM_PG_URL")
	case PointsOf(c.Role) == nil:
		return fmt.Errorf("-role %q: want worker, relay, consumer or operator", c.Role)
	case c.ID < 0 || c.Incarnation < 0:
		return errors.New("-id and -incarnation must be >= 0")
	case c.KillAt != "" && c.KillNth < 1:
		return errors.New("-kill-nth must be >= 1")
	case c.KillStmt < 0 || c.KillStmt > 0 && Boundaries(c.KillAt) == 0:
		return errors.New("-kill-stmt must be >= 0, and 0 unless -kill-at is an inside_*_after_stmt point")
	case c.Lease <= 0 || c.Work < 0 || c.SlowWork < 0:
		return errors.New("-lease must be > 0, -work and -slow-work >= 0")
	}
	_, err := ParsePoint(c.Role, string(c.KillAt))
	return err
}

// RunChild runs one role until SIGTERM or SIGINT (then it returns nil), an
// error, or its kill point. Against PostgreSQL.
func RunChild(ctx context.Context, c ChildConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	proc := ProcName(c.Role, c.ID, c.Incarnation)
	var hist *History
	if c.History != "" {
		var err error
		if hist, err = OpenHistory(c.History, proc); err != nil {
			return err
		}
		defer hist.Close()
	}
	hist.Write(Entry{Op: OpStart, Point: string(c.KillAt), Attempt: int32(c.KillNth)})
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
	kill := &Killer{At: c.KillAt, Nth: c.KillNth, Stmt: c.KillStmt, Hist: hist}
	clk := clock.New()
	switch c.Role {
	case RoleWorker:
		w := &Worker{Ops: conn, Clock: clk, Name: proc, Lease: c.Lease, Work: c.Work, SlowWork: c.SlowWork,
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
